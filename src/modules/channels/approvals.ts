// A permission request as a chat message with buttons, pure: the three answers and the data a button
// carries, and the message's text in each channel's markup, fitted under its length limit. The text of
// a settled request is the same message with the outcome in place of the expiry, so the chat keeps a
// record of what was allowed.
import type { Decider, DecisionBody, PermissionRequest } from '../../protocol/permissions.ts';
import { CHANNEL_LABELS, type Button, type ChannelName } from './adapter.ts';
import { escapeHtml } from './format.ts';
import { decisionBody, type PermissionAnswer } from '../../protocol/permissions-text.ts';

/** The answers a button gives; the code is what its data carries. */
export const CHOICES = {
  once: { code: 'o', label: 'Allow once' },
  session: { code: 's', label: 'Allow for this session' },
  deny: { code: 'd', label: 'Deny' },
} as const satisfies Record<PermissionAnswer, { code: string; label: string }>;
export type Choice = keyof typeof CHOICES;

/** Telegram's callback_data holds at most 64 bytes (Discord's custom_id 100). */
const MAX_DATA_BYTES = 64;
const PREFIX = 'perm';

/** What a button hands back when pressed: which answer, to which request (ids are short: `perm_` and 12 characters). */
export function buttonData(requestId: string, choice: Choice): string {
  const data = `${PREFIX}:${CHOICES[choice].code}:${requestId}`;
  if (Buffer.byteLength(data) > MAX_DATA_BYTES) throw new Error(`button data longer than ${MAX_DATA_BYTES} bytes: ${data}`);
  return data;
}

/** The answer a button's data names, or undefined for data that is not a permission answer. */
export function pressedChoice(data: string): { requestId: string; choice: Choice } | undefined {
  const [prefix, code, requestId] = data.split(':');
  const choice = (Object.keys(CHOICES) as Choice[]).find((c) => CHOICES[c].code === code);
  return prefix === PREFIX && choice && requestId ? { requestId, choice } : undefined;
}

/** The allows side by side, deny on a row of its own: a wide button away from them. */
export function promptButtons(requestId: string): Button[][] {
  const button = (choice: Choice): Button => ({ label: CHOICES[choice].label, data: buttonData(requestId, choice), danger: choice === 'deny' });
  return [[button('once'), button('session')], [button('deny')]];
}

/** The decision a press makes; a deny says where it came from and who pressed (the agent reads it). */
export function decisionOf(choice: Choice, channel: ChannelName, who: string): DecisionBody {
  return decisionBody(choice, choice === 'deny' ? `Denied from ${CHANNEL_LABELS[channel]} by ${who}.` : '');
}

/** Who pressed a button of this prompt, kept until the request's resolution is shown. */
export interface Pressed {
  who: string;
  choice: Choice;
}

/** Markup of one channel: Telegram's HTML subset, Discord's Markdown. */
export interface TextFormat {
  html: boolean;
  escape(text: string): string;
  bold(text: string): string;
  /** A preformatted block whose content takes at most `room` characters. */
  block(text: string, room: number): string;
  /** A moment, as the reader reads it. */
  time(at: number, now: number): string;
}

/** `text` cut to `room` characters, saying how much was left out. */
function fit(text: string, room: number): string {
  if (text.length <= room) return text;
  const kept = Math.max(0, room - 32);
  return `${text.slice(0, kept)}\n… (${text.length - kept} more characters)`;
}

const minutes = (ms: number) => `${Math.max(1, Math.round(ms / 60_000))} min`;

export const FORMATS: Record<ChannelName, TextFormat> = {
  telegram: {
    html: true,
    escape: escapeHtml,
    bold: (text) => `<b>${escapeHtml(text)}</b>`,
    // cut before escaping: Telegram's limit counts the text as shown, entities as one character
    block: (text, room) => `<pre>${escapeHtml(fit(text, room))}</pre>`,
    time: (at, now) => `in ${minutes(at - now)} (${new Date(at).toISOString().slice(11, 16)} UTC)`,
  },
  discord: {
    html: false,
    // mentions need no escape: the messages are sent mentioning nobody
    escape: (text) => text.replace(/[\\*_~`|>[\]()<#-]/g, '\\$&'),
    bold: (text) => `**${FORMATS.discord.escape(text)}**`,
    // a fence inside the content would end the block early; a zero-width space breaks it up
    block: (text, room) => `\`\`\`\n${fit(text.replace(/```/g, '``\u200b`'), room)}\n\`\`\``,
    // Discord shows a timestamp in the reader's own time zone, and the relative one counts down
    time: (at) => `<t:${Math.floor(at / 1000)}:R> (<t:${Math.floor(at / 1000)}:t>)`,
  },
};

const BY: Record<Exclude<Decider, 'telegram' | 'discord'>, string> = {
  person: 'in svc',
  push: 'from a notification',
  rule: 'by a remembered rule',
  timeout: 'because nobody answered in time',
  'run-ended': 'because the run ended first',
  restart: 'because svc restarted',
};

/** How a settled request ended, in one line: what, by whom, and a person's reason for a deny. */
export function outcomeLine(request: PermissionRequest, pressed: Pressed | undefined, format: TextFormat): string {
  const allowed = request.status === 'allowed';
  const what = allowed ? (pressed?.choice === 'session' ? 'Allowed for this session' : 'Allowed') : 'Denied';
  const by = request.decidedBy ?? 'restart';
  const where = by === 'telegram' || by === 'discord' ? `by ${pressed?.who ?? 'someone'} from ${CHANNEL_LABELS[by]}` : BY[by];
  // a reason a person wrote in svc is worth reading here; svc's own reasons repeat the line
  const reason = !allowed && by === 'person' && request.reason ? `: ${request.reason}` : '';
  const line = `${allowed ? '✅' : '⛔'} ${what} ${where}${reason}`;
  return format.escape(/[.!?]$/.test(line) ? line : `${line}.`);
}

/**
 * The message: who asks for which tool, the summary (command, file and change, or input), and `footer`
 * (the expiry while pending, the outcome once settled), within `limit` characters.
 */
export function promptText(request: PermissionRequest, format: TextFormat, limit: number, footer: string): string {
  const { summary } = request;
  const head = [format.bold(`🔐 ${request.provider} asks to use ${fit(request.tool, 100)}`), format.escape(fit(summary.title, 300))];
  if (summary.path !== undefined && summary.command === undefined) head.push(format.escape(`File: ${fit(summary.path, 300)}`));
  const body = summary.command ?? summary.diff ?? summary.detail;
  const frame = [...head, footer].join('\n').length + 2;
  return [...head, ...(body !== undefined ? [format.block(body, limit - frame - format.block('', 0).length)] : []), footer].join('\n');
}

/** The footer of a pending request. */
export function expiryLine(request: PermissionRequest, format: TextFormat, now: number): string {
  return `Expires ${format.time(request.expiresAt, now)}.`;
}
