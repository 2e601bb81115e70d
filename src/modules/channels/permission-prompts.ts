// Permission requests answered from a chat. A request of a run in a chat's session (the chat that
// started it) is sent to that chat with Allow once / Allow for this session / Deny buttons; a press
// from that chat, still on the allowlist, decides it through the permissions service (a person, named
// in the audit entry); a press from anywhere else is refused and decides nothing. However the request
// ends (a press, the web UI, a notification, the timeout, the run's end), the message shows the outcome
// and loses its buttons.
import { AppError } from '../../core/errors.ts';
import type { Decider, DecisionBody, PermissionRequest } from '../../protocol/permissions.ts';
import type { AuditSink } from '../security-audit/index.ts';
import type { Button, ButtonPress, ChannelName, SendTarget } from './adapter.ts';
import { decisionOf, expiryLine, FORMATS, outcomeLine, pressedChoice, promptButtons, promptText, type Pressed } from './approvals.ts';
import { chatKeyOf, targetOf } from './sessions.repo.ts';

/** The permissions service, as far as a chat uses it. */
export interface PermissionDesk {
  get(id: string): PermissionRequest | undefined;
  decide(id: string, body: DecisionBody, by: Decider, actor: string): PermissionRequest;
}

/** A connected channel's way to send and settle a prompt. */
export interface PromptChat {
  maxLength: number;
  sendButtons(target: SendTarget, piece: { text: string; html: boolean }, rows: Button[][]): Promise<string>;
  settle(target: SendTarget, messageId: string, piece: { text: string; html: boolean }): Promise<void>;
}

export interface PromptDeps {
  desk: PermissionDesk;
  /** The chat a chat session belongs to (sessions.repo.ts). */
  chatOf(sessionId: string): { channel: ChannelName; chatKey: string } | undefined;
  allowed(channel: ChannelName, chatId: string): boolean;
  /** The channel's chat while it is connected. */
  chat(channel: ChannelName): PromptChat | undefined;
  audit: AuditSink;
  now?(): number;
}

const NOT_ALLOWED = 'You are not allowed to answer this request.';

interface Sent {
  channel: ChannelName;
  target: SendTarget;
  messageId: string;
}

export class PermissionPrompts {
  /** The message of each request sent to a chat (resolved when the send is done; undefined if it failed). */
  private readonly sent = new Map<string, Promise<Sent | undefined>>();
  /** Who pressed, from the press until the outcome is shown. */
  private readonly pressed = new Map<string, Pressed>();

  constructor(private readonly deps: PromptDeps) {}

  /** A new request: to the chat its run's session belongs to, if that chat is allowed and its channel connected. */
  asked(request: PermissionRequest): void {
    const owner = this.deps.chatOf(request.sessionId);
    if (!owner) return;
    const target = targetOf(owner.chatKey);
    const chat = this.deps.chat(owner.channel);
    if (!chat || !this.deps.allowed(owner.channel, target.chatId)) return;
    const format = FORMATS[owner.channel];
    const text = promptText(request, format, chat.maxLength, expiryLine(request, format, this.deps.now?.() ?? Date.now()));
    const sending = chat.sendButtons(target, { text, html: format.html }, promptButtons(request.id)).then(
      (messageId) => ({ channel: owner.channel, target, messageId }),
      (err: Error) => {
        // the request is still answerable in svc and the other places it is shown
        console.error(`svc: ${owner.channel}: the permission request ${request.id} could not be sent: ${err.message}`);
        return undefined;
      },
    );
    this.sent.set(request.id, sending);
  }

  /** However it was decided: the message shows the outcome and its buttons go. */
  resolved(id: string): Promise<void> {
    const sending = this.sent.get(id);
    const pressed = this.pressed.get(id);
    this.sent.delete(id);
    this.pressed.delete(id);
    if (!sending) return Promise.resolve();
    return sending.then(async (sent) => {
      const request = this.deps.desk.get(id);
      const chat = sent && this.deps.chat(sent.channel);
      if (!sent || !chat || !request) return;
      const format = FORMATS[sent.channel];
      const text = promptText(request, format, chat.maxLength, outcomeLine(request, pressed, format));
      await chat.settle(sent.target, sent.messageId, { text, html: format.html }).catch((err: Error) => console.error(`svc: ${sent.channel}: the permission message could not be updated: ${err.message}`));
    });
  }

  /**
   * A button pressed. It decides only from the chat the request's session belongs to, while that chat
   * is on the allowlist; anyone else is told no, and the refusal is audited (flood-limited).
   */
  async press(channel: ChannelName, press: ButtonPress): Promise<void> {
    const pressedAnswer = pressedChoice(press.data);
    if (!pressedAnswer) return press.acknowledge('This button is no longer in use.');
    const { requestId, choice } = pressedAnswer;
    const request = this.deps.desk.get(requestId);
    const owner = request && this.deps.chatOf(request.sessionId);
    const fromOwner = owner?.channel === channel && owner.chatKey === chatKeyOf(press);
    const actor = `channel:${channel}:${press.senderId} (${press.senderName})`;
    if (!fromOwner || !this.deps.allowed(channel, press.chatId)) {
      this.deps.audit.recordLimited(`permission.refused:${channel}:${press.chatId}`, {
        actor,
        action: 'permission.decide',
        target: requestId,
        outcome: 'refused',
        details: { chat: `${channel}:${chatKeyOf(press)}`, reason: fromOwner ? 'not on the allowlist' : 'not the chat that started the run' },
      });
      return press.acknowledge(NOT_ALLOWED);
    }
    this.pressed.set(requestId, { who: press.senderName, choice });
    try {
      this.deps.desk.decide(requestId, decisionOf(choice, channel, press.senderName), channel, actor);
    } catch (err) {
      this.pressed.delete(requestId);
      if (!(err instanceof AppError)) throw err;
      // decided already (elsewhere, or the timeout): the first decision stands, and the presser learns which
      if (err.status !== 409) return press.acknowledge(err.message);
      const by = err.details?.decidedBy;
      return press.acknowledge(`Already ${String(err.details?.status ?? 'decided')}${by ? ` (${String(by)})` : ''}.`);
    }
    // the message itself shows the outcome (resolved() runs as the decision is published)
    return press.acknowledge();
  }

  close(): void {
    this.sent.clear();
    this.pressed.clear();
  }
}
