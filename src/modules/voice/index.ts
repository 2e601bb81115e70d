// Voice input: POST /api/voice and the transcriber channel voice notes use (an OpenAI-compatible
// /audio/transcriptions endpoint set in the `voice` settings).
export { VoiceService, type Transcript } from './voice.service.ts';
export { voiceRoutes, type VoiceRouteDeps } from './voice.routes.ts';
export { voiceSettings, type VoiceSettings } from './settings.ts';
