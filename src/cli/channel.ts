// `svc channel list|send|pair`: the chat channels of a running server. The agent sends with
// `svc channel send "text"` or `svc channel send --type photo --file shot.png` from its shell.
import type { ChannelSendBody, ChannelSendResult, ChannelState } from '../protocol/channels.ts';
import { jsonOf, requestText } from './http-client.ts';
import { authHeaders, type ServerTarget } from './target.ts';

export type ChannelCall =
  | { kind: 'list' }
  | { kind: 'send'; body: ChannelSendBody }
  | { kind: 'pair'; channel: string };

function requestOf(call: ChannelCall): { method: 'GET' | 'POST'; path: string; body?: unknown } {
  switch (call.kind) {
    case 'list':
      return { method: 'GET', path: '/api/channels' };
    case 'send':
      return { method: 'POST', path: '/api/channel/send', body: call.body };
    case 'pair':
      return { method: 'POST', path: `/api/channels/${encodeURIComponent(call.channel)}/pair`, body: {} };
  }
}

export function renderChannel(call: ChannelCall, answer: unknown): string {
  switch (call.kind) {
    case 'list':
      return (answer as { channels: ChannelState[] }).channels
        .map((c) => {
          // the reason says when it tries again; a first attempt has none yet
          const state = !c.enabled ? 'off' : c.connected ? `connected as ${c.botName}` : c.lastError ? `not connected: ${c.lastError}` : c.status === 'connecting' ? 'connecting' : 'not connected';
          return `${c.name.padEnd(9)} ${state}; ${c.allowlist.length} allowed, ${c.counts.received} received, ${c.counts.ignored} ignored, ${c.counts.sent} sent`;
        })
        .join('\n');
    case 'send': {
      const r = answer as ChannelSendResult;
      return `sent to ${r.channel} ${r.target}: message ${r.messageIds.join(', ')}`;
    }
    case 'pair': {
      const p = answer as { instructions: string };
      return p.instructions;
    }
  }
}

export async function channelCommand(call: ChannelCall, target: ServerTarget, json: boolean): Promise<number> {
  const { method, path, body } = requestOf(call);
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(target) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await requestText(`${target.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), pin: target.pin });
  } catch (err) {
    console.error(`svc channel: cannot reach ${target.url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
  const answer = jsonOf(response);
  if (!response.ok) {
    console.error(`svc channel ${call.kind}: ${String(answer.message ?? `HTTP ${response.status}`)}`);
    return 1;
  }
  console.log(json ? JSON.stringify(answer, null, 2) : renderChannel(call, answer));
  return 0;
}
