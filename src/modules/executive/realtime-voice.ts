// Realtime voice (POST /api/svc-ceo/voice/connect): the browser's WebRTC offer goes to the realtime
// endpoint with svc's key (the browser never sees it); svc then joins the same call over its
// server-side WebSocket, gives the model the executive's instructions and tools, and runs each
// function call here, on the executive's service (audited, confirmations required as anywhere).
import WebSocket from 'ws';
import { AppError, notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { ExecutiveService } from './executive.service.ts';
import { callIdOf, callSession, functionCalls, functionOutput, realtimeUrls, RESPONSE_CREATE, sessionUpdate, spokenText, type FunctionCall } from './realtime.ts';
import type { RealtimeSettings } from './settings.ts';
import { CEO_TOOLS, toolParameters } from './tools.ts';

const CALL_TIMEOUT_MS = 15_000;

export interface RealtimeVoiceDeps {
  service: ExecutiveService;
  settings(): RealtimeSettings;
  instructions(): string;
  now?: () => number;
}

interface Live {
  id: string;
  callId: string;
  ws: WebSocket;
  model: string;
  voice: string;
  startedAt: number;
  hangupUrl: string;
  apiKey: string;
  answered: Set<string>;
}

export interface VoiceSessionView {
  id: string;
  model: string;
  voice: string;
  startedAt: number;
}

const viewOf = (l: Live): VoiceSessionView => ({ id: l.id, model: l.model, voice: l.voice, startedAt: l.startedAt });

const failed = (why: string) =>
  new AppError(502, 'REALTIME_FAILED', `Realtime voice could not connect: ${why}. Check realtime.baseUrl and realtime.apiKey (PUT /api/svc-ceo/settings).`);

/** Joins a call's server-side socket; resolves once it is open. */
function openSideband(url: string, apiKey: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` }, handshakeTimeout: CALL_TIMEOUT_MS });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      ws.terminate();
      reject(new Error(`the call's socket answered ${res.statusCode}`));
    });
    ws.once('error', reject);
  });
}

export class RealtimeVoice {
  private live: Live | null = null;
  private readonly now: () => number;

  constructor(private readonly d: RealtimeVoiceDeps) {
    this.now = d.now ?? Date.now;
  }

  status(): { configured: boolean; session: VoiceSessionView | null } {
    const s = this.d.settings();
    return { configured: s.baseUrl !== '' && s.apiKey !== '', session: this.live ? viewOf(this.live) : null };
  }

  /** Answers the browser's offer and joins the call; one live session (a new one replaces it). */
  async connect(offerSdp: string): Promise<VoiceSessionView & { sdp: string }> {
    const s = this.d.settings();
    if (!s.baseUrl || !s.apiKey) {
      throw new AppError(409, 'REALTIME_NOT_CONFIGURED', 'Realtime voice needs an endpoint: set realtime.baseUrl (e.g. https://api.openai.com/v1) and realtime.apiKey with PUT /api/svc-ceo/settings. Push-to-talk works without it.');
    }
    if (this.live) await this.close(this.live.id, 'replaced by a new call');
    const urls = realtimeUrls(s.baseUrl);
    const redact = (text: string) => text.replaceAll(s.apiKey, '***').slice(0, 300);
    const form = new FormData();
    form.set('sdp', offerSdp);
    form.set('session', JSON.stringify(callSession(s)));
    let answer: string;
    let callId: string | null;
    try {
      const response = await fetch(urls.calls, { method: 'POST', headers: { authorization: `Bearer ${s.apiKey}` }, body: form, redirect: 'error', signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
      answer = await response.text();
      if (!response.ok) throw new Error(`the endpoint answered ${response.status}: ${redact(answer)}`);
      callId = callIdOf(response.headers.get('location'));
    } catch (err) {
      this.d.service.audit('voice', 'connect', false, redact((err as Error).message));
      throw failed(redact((err as Error).message));
    }
    if (!callId) throw failed('the endpoint named no call (no Location header)');
    let ws: WebSocket;
    try {
      ws = await openSideband(urls.sideband(callId), s.apiKey);
    } catch (err) {
      await this.hangup(urls.hangup(callId), s.apiKey);
      this.d.service.audit('voice', 'connect', false, `the call's server-side socket failed: ${redact((err as Error).message)}`);
      throw failed(`the call's server-side socket failed (${redact((err as Error).message)})`);
    }
    const live: Live = { id: newId('voice'), callId, ws, model: s.model, voice: s.voice, startedAt: this.now(), hangupUrl: urls.hangup(callId), apiKey: s.apiKey, answered: new Set() };
    this.live = live;
    ws.on('message', (data) => void this.onEvent(live, String(data)));
    ws.on('error', () => undefined); // a broken socket closes; 'close' ends the session
    ws.on('close', () => this.ended(live, 'the call ended'));
    const tools = CEO_TOOLS.map((t) => ({ name: t.name, description: t.description, parameters: toolParameters(t) }));
    ws.send(JSON.stringify(sessionUpdate(this.d.instructions(), tools)));
    this.d.service.audit('voice', 'connect', true, `realtime voice session ${live.id} (${s.model}, ${s.voice})`, null, { sessionId: live.id });
    return { ...viewOf(live), sdp: answer };
  }

  /** Hangs up and leaves the call. */
  async close(id: string, reason = 'closed by the person'): Promise<void> {
    const live = this.live;
    if (!live || live.id !== id) throw notFound('Voice session', id);
    this.live = null;
    await this.hangup(live.hangupUrl, live.apiKey);
    live.ws.close();
    this.d.service.audit('voice', 'close', true, `realtime voice session ${id} ${reason}`, null, { sessionId: id });
  }

  /** On server stop. */
  async closeAll(): Promise<void> {
    if (this.live) await this.close(this.live.id, 'closed as the server stops');
  }

  private async hangup(url: string, apiKey: string): Promise<void> {
    // best effort: the call may have ended already
    await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(5000) }).then((r) => r.body?.cancel(), () => undefined);
  }

  private ended(live: Live, reason: string): void {
    if (this.live !== live) return;
    this.live = null;
    this.d.service.audit('voice', 'ended', true, `realtime voice session ${live.id}: ${reason}`, null, { sessionId: live.id });
  }

  private async onEvent(live: Live, data: string): Promise<void> {
    let event: { type?: unknown; error?: { message?: unknown } };
    try {
      event = JSON.parse(data) as typeof event;
    } catch {
      return;
    }
    const spoken = spokenText(event);
    if (spoken) this.d.service.say(spoken.role, spoken.text);
    if (event.type === 'error') this.d.service.audit('voice', 'error', false, String(event.error?.message ?? 'the realtime endpoint reported an error').slice(0, 300), null, { sessionId: live.id });
    const calls = functionCalls(event).filter((c) => !live.answered.has(c.callId));
    if (!calls.length) return;
    for (const call of calls) {
      live.answered.add(call.callId);
      const output = await this.runTool(call);
      if (live.ws.readyState === WebSocket.OPEN) live.ws.send(JSON.stringify(functionOutput(call.callId, output)));
    }
    if (live.ws.readyState === WebSocket.OPEN) live.ws.send(JSON.stringify(RESPONSE_CREATE));
  }

  /** Runs a function call on the service: its result fenced as untrusted data, or why it was refused. */
  private async runTool(call: FunctionCall): Promise<string> {
    const tool = CEO_TOOLS.find((t) => t.name === call.name);
    let args: unknown;
    try {
      args = JSON.parse(call.arguments || '{}');
    } catch {
      args = undefined;
    }
    const parsed = tool?.input.safeParse(args);
    if (!tool || !parsed?.success) {
      const why = !tool ? `no tool ${call.name}` : `bad arguments for ${call.name}: ${parsed!.error!.issues.map((i) => `${i.path.join('.') || '(input)'} ${i.message}`).join('; ')}`;
      this.d.service.audit('policy', call.name.slice(0, 64), false, `voice: ${why}`);
      return `Refused: ${why}`;
    }
    try {
      const result = await tool.run(this.d.service, parsed.data as Record<string, unknown>);
      return `<untrusted-data>\n${JSON.stringify(result)}\n</untrusted-data>`;
    } catch (err) {
      const code = err instanceof AppError ? `${err.status} ${err.code}` : 'error';
      return `Refused (${code}): ${(err as Error).message}`;
    }
  }
}
