// A local stand-in for OpenAI's Realtime API over WebRTC (the vendor's cloud cannot run here), speaking
// its protocol: POST /v1/realtime/calls (multipart sdp + session, Bearer key) answered by a real WebRTC
// peer (werift, pure TypeScript) with the call's id in Location; the call's server-side WebSocket
// (/v1/realtime?call_id=…) that records client events and can ask for a function call the way the
// model does (response.done with a function_call item); and POST /v1/realtime/calls/:id/hangup.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { RTCPeerConnection, type RTCDataChannel } from 'werift';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeCall {
  id: string;
  /** The session JSON the offer carried. */
  session: Record<string, unknown>;
  pc: RTCPeerConnection;
  channels: RTCDataChannel[];
  sideband: WebSocket | null;
  /** Client events received on the call's socket, in order. */
  events: Array<Record<string, unknown>>;
  hungUp: boolean;
}

export interface FakeRealtime {
  /** The base URL to configure (…/v1). */
  baseUrl: string;
  calls: FakeCall[];
  /** Every Authorization header it saw (offers, sockets, hang-ups). */
  authorizations: string[];
  /** Asks for a function call on the call's socket, as the model does; resolves with the output svc hands back, once it also asked for a response. */
  callFunction(call: FakeCall, name: string, args: Record<string, unknown>): Promise<string>;
  /** Says something on the socket (e.g. a transcript event). */
  emit(call: FakeCall, event: Record<string, unknown>): void;
  /** Resolves when `check` holds (checked on every event and every 20 ms). */
  until<T>(check: () => T | undefined, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

export async function startFakeRealtime(apiKey: string): Promise<FakeRealtime> {
  const calls: FakeCall[] = [];
  const authorizations: string[] = [];
  const authorized = (req: IncomingMessage) => {
    authorizations.push(String(req.headers.authorization));
    return req.headers.authorization === `Bearer ${apiKey}`;
  };

  const offer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (!authorized(req)) return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
    const sdp = form.get('sdp');
    if (typeof sdp !== 'string') return json(res, 400, { error: { message: 'sdp is required', type: 'invalid_request_error' } });
    const pc = new RTCPeerConnection({ iceUseIpv6: false, bundlePolicy: 'max-bundle' });
    const call: FakeCall = { id: `rtc_${randomUUID().replaceAll('-', '')}`, session: JSON.parse(String(form.get('session') ?? '{}')), pc, channels: [], sideband: null, events: [], hungUp: false };
    pc.onDataChannel.subscribe((dc) => call.channels.push(dc));
    await pc.setRemoteDescription({ type: 'offer', sdp });
    await pc.setLocalDescription(await pc.createAnswer());
    calls.push(call);
    res.writeHead(201, { 'content-type': 'application/sdp', location: `/v1/realtime/calls/${call.id}` }).end(pc.localDescription!.sdp);
  };

  const hangup = async (req: IncomingMessage, res: ServerResponse, id: string) => {
    for await (const _ of req);
    if (!authorized(req)) return json(res, 401, { error: { message: 'Incorrect API key provided' } });
    const call = calls.find((c) => c.id === id);
    if (!call) return json(res, 404, { error: { message: 'call not found' } });
    call.hungUp = true;
    call.sideband?.close();
    await call.pc.close();
    res.writeHead(200).end();
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const hang = /^\/v1\/realtime\/calls\/([\w-]+)\/hangup$/.exec(url.pathname);
    if (req.method === 'POST' && url.pathname === '/v1/realtime/calls') void offer(req, res);
    else if (req.method === 'POST' && hang) void hangup(req, res, hang[1]!);
    else json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket: Socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const call = calls.find((c) => c.id === url.searchParams.get('call_id'));
    const refuse = (status: string) => socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    if (url.pathname !== '/v1/realtime') return refuse('404 Not Found');
    if (!authorized(req)) return refuse('401 Unauthorized');
    if (!call) return refuse('404 Not Found');
    wss.handleUpgrade(req, socket, head, (ws) => {
      call.sideband = ws;
      ws.on('message', (data) => call.events.push(JSON.parse(String(data)) as Record<string, unknown>));
      ws.send(JSON.stringify({ type: 'session.created', event_id: randomUUID(), session: { type: 'realtime', ...call.session } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  async function until<T>(check: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`fake realtime: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    authorizations,
    emit: (call, event) => call.sideband!.send(JSON.stringify({ event_id: randomUUID(), ...event })),
    async callFunction(call, name, args) {
      const callId = `call_${randomUUID().slice(0, 12)}`;
      const from = call.events.length;
      call.sideband!.send(
        JSON.stringify({
          type: 'response.done',
          event_id: randomUUID(),
          response: { id: `resp_${randomUUID().slice(0, 8)}`, object: 'realtime.response', status: 'completed', output: [{ type: 'function_call', id: `item_${randomUUID().slice(0, 8)}`, status: 'completed', call_id: callId, name, arguments: JSON.stringify(args) }] },
        }),
      );
      return until(() => {
        const later = call.events.slice(from);
        const at = later.findIndex((e) => e.type === 'conversation.item.create' && (e.item as { call_id?: string }).call_id === callId);
        if (at < 0 || !later.slice(at + 1).some((e) => e.type === 'response.create')) return undefined;
        const item = later[at]!.item as { type: string; output: string };
        if (item.type !== 'function_call_output') throw new Error(`expected a function_call_output, got ${item.type}`);
        return item.output;
      }, `the output of ${name}`);
    },
    until,
    async close() {
      for (const call of calls) {
        call.sideband?.terminate();
        await call.pc.close();
      }
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
