// A message from an allowed chat: its files saved to media (voice notes transcribed when a transcriber
// is set), slash commands answered, anything else a user message of the chat session bound to that
// chat, run by the agent with a typing indicator (and the live tool-step status when the channel's
// toolStatus is on), and the answer sent back.
import type { CommandRegistry } from '../../agent/commands.ts';
import type { RuntimeStatus } from '../../protocol/runs.ts';
import type { RunSink, StreamLine } from '../../protocol/stream-lines.ts';
import { withAttachments, type AttachedFile } from '../media/index.ts';
import { CHANNEL_LABELS, type ChannelName, type InboundMessage } from './adapter.ts';
import type { Replier } from './channels.service.ts';
import { chatKeyOf, type ChannelSessionRepo } from './sessions.repo.ts';
import { ToolStatus, type ToolLine } from './status.ts';

export const MAX_INBOUND_FILE = 20 * 2 ** 20;
const TYPING_EVERY_MS = 4000;

export interface InboundDeps {
  sessions: ChannelSessionRepo;
  chat: { createSession(title: string, activate: boolean): { id: string }; exists(id: string): boolean };
  runtime: {
    submit(input: { prompt: string; sessionId: string; sink?: RunSink }): { requestId: string; queued: boolean };
    stop(reason?: string): { stopped: boolean; cleared: number };
    status(): RuntimeStatus;
  };
  commands: CommandRegistry;
  media: { save(name: string, bytes: Buffer, type: string): Promise<AttachedFile> };
  /** Speech to text for voice notes; without it a voice note is attached as a file. */
  transcribe?(audio: Buffer, mime: string, name: string): Promise<string>;
}

type Done = Extract<StreamLine, { type: 'done' }>;

/** A sink that remembers the `done` line and resolves when the run's stream ends; tool lines go to `onTool`. */
function collector(onTool?: (line: ToolLine) => void): { sink: RunSink; done: Promise<Done | undefined> } {
  let last: Done | undefined;
  let finish!: (d: Done | undefined) => void;
  const done = new Promise<Done | undefined>((resolve) => (finish = resolve));
  return {
    sink: {
      write(line) {
        if (line.type === 'done') last = line;
        else if (line.type === 'tool') onTool?.(line);
      },
      end: () => finish(last),
    },
    done,
  };
}

export function inboundHandler(deps: InboundDeps) {
  const newSession = (channel: ChannelName, m: InboundMessage) => {
    const session = deps.chat.createSession(`${CHANNEL_LABELS[channel]} · ${m.chatTitle}`.slice(0, 120), false);
    deps.sessions.bind(channel, chatKeyOf(m), session.id);
    return session.id;
  };
  const sessionFor = (channel: ChannelName, m: InboundMessage) => {
    const bound = deps.sessions.get(channel, chatKeyOf(m));
    return bound && deps.chat.exists(bound) ? bound : newSession(channel, m);
  };

  async function command(channel: ChannelName, m: InboundMessage, sessionId: string, reply: Replier): Promise<void> {
    const [name = ''] = m.text.slice(1).split(/\s+/, 1);
    switch (name.toLowerCase()) {
      case 'start':
      case 'help': {
        const list = deps.commands.list().map((c) => `${c.usage} — ${c.description}`);
        await reply.text(['Write to talk to the agent. Commands:', '/new — start a new session for this chat', '/stop — stop the agent', '/status — what the agent is doing', ...list].join('\n'));
        return;
      }
      case 'new':
        newSession(channel, m);
        await reply.text('Started a new session for this chat.');
        return;
      case 'stop': {
        const { stopped, cleared } = deps.runtime.stop(`stopped from ${channel}`);
        await reply.text(stopped || cleared ? `Stopped${cleared ? ` (${cleared} queued dropped)` : ''}.` : 'Nothing was running.');
        return;
      }
      case 'status': {
        const status = deps.runtime.status();
        const mine = status.active?.sessionId === sessionId;
        await reply.text(status.busy ? `Running (${status.active?.provider}${mine ? ', this chat' : ', another session'}); ${status.total} queued.` : 'Idle.');
        return;
      }
    }
    try {
      const { command: found, args } = deps.commands.resolve(m.text);
      const { sink, done } = collector();
      // a person on an allowed chat: a human, as in the web UI
      const result = await found.run(args, { openStream: () => sink, caller: { kind: 'human' } });
      const text = typeof result === 'string' ? result : ((await done)?.text ?? '');
      await reply.text(text || 'Done.');
    } catch (err) {
      await reply.text(`⚠️ ${(err as Error).message}`);
    }
  }

  async function files(m: InboundMessage): Promise<{ attached: AttachedFile[]; transcripts: string[]; skipped: string[] }> {
    const attached: AttachedFile[] = [];
    const transcripts: string[] = [];
    const skipped: string[] = [];
    for (const file of m.files) {
      if (file.size !== undefined && file.size > MAX_INBOUND_FILE) {
        skipped.push(`${file.name} (larger than ${MAX_INBOUND_FILE / 2 ** 20} MB)`);
        continue;
      }
      try {
        const bytes = await file.download();
        if (bytes.length > MAX_INBOUND_FILE) {
          skipped.push(`${file.name} (larger than ${MAX_INBOUND_FILE / 2 ** 20} MB)`);
          continue;
        }
        attached.push(await deps.media.save(file.name, bytes, file.mime));
        if (file.kind === 'voice' && deps.transcribe) {
          const text = await deps.transcribe(bytes, file.mime, file.name).catch(() => '');
          if (text) transcripts.push(text);
        }
      } catch (err) {
        skipped.push(`${file.name} (${(err as Error).message})`);
      }
    }
    return { attached, transcripts, skipped };
  }

  return async function onInbound(channel: ChannelName, m: InboundMessage, reply: Replier): Promise<void> {
    const sessionId = sessionFor(channel, m);
    if (m.text.startsWith('/') && m.files.length === 0) return command(channel, m, sessionId, reply);
    const { attached, transcripts, skipped } = await files(m);
    if (skipped.length) await reply.text(`Not attached: ${skipped.join(', ')}`);
    const text = [m.text, ...transcripts].filter(Boolean).join('\n\n');
    const prompt = withAttachments(text, attached);
    if (!prompt) return;
    const status = reply.status ? new ToolStatus(reply.status) : undefined;
    const { sink, done } = collector((line) => status?.step(line));
    const typing = () => void reply.typing().catch(() => undefined);
    typing();
    const timer = setInterval(typing, TYPING_EVERY_MS);
    try {
      try {
        deps.runtime.submit({ prompt, sessionId, sink });
      } catch (err) {
        await reply.text(`⚠️ ${(err as Error).message}`);
        return;
      }
      const line = await done;
      clearInterval(timer);
      await status?.finish();
      if (!line) return;
      if (line.status === 'ok') await reply.text(line.text.trim() || '(the agent gave no answer)');
      else if (line.status === 'stopped') await reply.text(`Stopped${line.reason ? `: ${line.reason}` : '.'}`);
      else await reply.text(`⚠️ The run failed: ${line.reason ?? 'unknown error'}${line.fix ? `\nFix: ${line.fix}` : ''}`);
    } finally {
      clearInterval(timer);
      await status?.finish();
    }
  };
}
