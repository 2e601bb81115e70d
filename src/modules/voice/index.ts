// Voice input: POST /api/voice and the transcriber channel voice notes use (the offline engine, Debian's
// pocketsphinx, or an OpenAI-compatible /audio/transcriptions endpoint, as the `voice` settings say).
export { VoiceService, type Transcript } from './voice.service.ts';
export { voiceRoutes, type VoiceRouteDeps } from './voice.routes.ts';
export { voiceSettings, type VoiceSettings } from './settings.ts';
export { DEFAULT_OFFLINE_TOOLS, type OfflineTools } from './offline.ts';
