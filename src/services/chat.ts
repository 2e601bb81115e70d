// Chat sessions and messages as the rest of the service sees them: every change is stored and
// then published on the bus.
import type { EventBus } from '../events/bus.ts';
import type { ChatSession, ChatSessionRepo } from '../store/chat-sessions.ts';
import type { Message, MessageRepo, MessageRole } from '../store/messages.ts';
import { notFound } from '../http/errors.ts';

export class ChatService {
  constructor(
    readonly sessions: ChatSessionRepo,
    readonly messages: MessageRepo,
    private readonly bus: EventBus,
  ) {
    sessions.ensureActive();
  }

  activeSession(): ChatSession {
    return this.sessions.ensureActive();
  }

  requireSession(id: string): ChatSession {
    const session = this.sessions.get(id);
    if (!session) throw notFound('chat session', id);
    return session;
  }

  createSession(title: string | undefined, activate: boolean): ChatSession {
    const session = this.sessions.create(title?.trim() || 'New chat');
    this.bus.publish('session_created', { sessionId: session.id, title: session.title });
    if (activate) return this.switchSession(session.id);
    this.publishList();
    return session;
  }

  switchSession(id: string): ChatSession {
    this.requireSession(id);
    this.sessions.activate(id);
    this.bus.publish('session_switched', { sessionId: id });
    this.publishList();
    return this.requireSession(id);
  }

  /** Saves a message and publishes it as the `message` event. */
  saveMessage(input: { sessionId: string; role: MessageRole; content: string; meta?: Record<string, unknown> }): Message {
    const message = this.messages.insert(input);
    this.sessions.touch(input.sessionId, message.createdAt);
    this.publishMessage(message);
    return message;
  }

  /**
   * A queued message whose turn has come moves behind the answers saved while it waited, so the
   * history reads in turn order; the `message` event says which id it `replaces`.
   */
  moveToEnd(id: number): Message | undefined {
    const moved = this.messages.moveToEnd(id);
    if (moved) this.publishMessage(moved, id);
    return moved;
  }

  private publishMessage(message: Message, replaces?: number): void {
    this.bus.publish('message', {
      id: message.id,
      role: message.role,
      content: message.content,
      sessionId: message.sessionId,
      createdAt: message.createdAt,
      ...(replaces !== undefined ? { replaces } : {}),
    });
  }

  private publishList(): void {
    this.bus.publish('session_list', {
      sessions: this.sessions.list(50).map((s) => ({ id: s.id, title: s.title, active: s.active, updatedAt: s.updatedAt })),
    });
  }
}
