// The chat channels' live state under their settings: connected or why not, counts, and pairing (a
// one-time code to send to the bot from the chat to allow). Follows channel_* and settings events.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post } from '../api.ts';
import { onLiveEvent, toast } from '../store.ts';
import type { ChannelState } from '../../../src/protocol/channels.ts';

interface Code {
  channel: string;
  code: string;
  expiresAt: number;
}

const LABEL: Record<string, string> = { telegram: 'Telegram', discord: 'Discord' };

/** A channel's state in words: connected as whom, or why not and when it tries again. */
function stateText(c: ChannelState): string {
  switch (c.status) {
    case 'off':
      return 'off';
    case 'connected':
      return `connected as ${c.botName ?? 'the bot'}`;
    case 'connecting':
      return `connecting…${c.lastError ? ` (${c.lastError})` : ''}`;
    default:
      return `not connected${c.lastError ? `: ${c.lastError}` : ''}`;
  }
}

export function ChannelStatus() {
  const [channels, setChannels] = useState<ChannelState[] | null>(null);
  const [code, setCode] = useState<Code | null>(null);
  const load = () =>
    void get<{ channels: ChannelState[] }>('/api/channels')
      .then((answer) => setChannels(answer.channels))
      .catch(() => undefined);
  useEffect(() => {
    load();
    return onLiveEvent((event) => {
      const name = (event as { event: string }).event;
      if (name === 'channel_connected' || name === 'channel_disconnected' || name === 'settings_changed') load();
    });
  }, []);
  if (!channels) return null;

  const pair = async (channel: string) => {
    try {
      setCode(await post<Code>(`/api/channels/${channel}/pair`, {}));
    } catch (err) {
      toast(err instanceof ApiError ? err.message : 'No pairing code could be made.');
    }
  };
  // the server answers at once (connecting); the outcome comes as channel_connected or channel_disconnected,
  // on which the list is read again
  const restart = async (channel: string) => {
    try {
      const state = await post<ChannelState>(`/api/channels/${channel}/restart`, {});
      setChannels((list) => list?.map((c) => (c.name === channel ? state : c)) ?? list);
    } catch (err) {
      toast(err instanceof ApiError ? err.message : 'The channel could not be restarted.');
    }
  };

  return (
    <div class="channel-status" aria-label="Channel status">
      {channels.map((c) => (
        <div key={c.name} class="channel-row" data-channel={c.name} data-connected={c.connected}>
          <strong>{LABEL[c.name]}</strong>{' '}
          <span class="muted">
            {stateText(c)}
            {' · '}
            {c.allowlist.length} allowed · {c.counts.received} received · {c.counts.ignored} ignored · {c.counts.sent} sent
          </span>
          {c.enabled && (
            <span class="channel-actions">
              <button type="button" class="btn small" onClick={() => void pair(c.name)} disabled={!c.pairable} title={c.pairable ? undefined : c.lastError ? `Not connected: ${c.lastError}` : 'Connect the bot first'}>
                Pair a chat
              </button>
              <button type="button" class="btn small ghost" disabled={c.status === 'connecting'} onClick={() => void restart(c.name)}>
                {c.status === 'connecting' ? 'Reconnecting…' : 'Reconnect'}
              </button>
            </span>
          )}
          {code?.channel === c.name && (
            <p class="pairing-code" role="status">
              Send <code>{code.code}</code> to {c.botName ?? 'the bot'} from the chat to allow, before {new Date(code.expiresAt).toLocaleTimeString()}.
            </p>
          )}
        </div>
      ))}
    </div>
  );
}
