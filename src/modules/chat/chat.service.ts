// Chat sessions and messages as the rest of the service sees them: every change is stored and
// then published on the bus.
import type { EventBus } from '../events/bus.ts';
import { DEFAULT_SESSION_TITLE, type ChatSession, type ChatSessionRepo } from '../store/chat-sessions.ts';
import type { Message, MessageRepo, MessageRole } from '../store/messages.ts';
import { notFound } from '../http/errors.ts';
import { titleFromMessage } from './session-title.ts';

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
    const session = this.sessions.create(title?.trim() || DEFAULT_SESSION_TITLE);
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

  renameSession(id: string, title: string): ChatSession {
    this.requireSession(id);
    this.sessions.rename(id, title);
    this.publishList();
    return this.requireSession(id);
  }

  /**
   * Deletes a session with its messages. When it was the active one, the most recently used other
   * session (or a fresh one) becomes active. Returns the active session afterwards.
   */
  deleteSession(id: string): ChatSession {
    const wasActive = this.requireSession(id).active;
    this.sessions.delete(id);
    const active = this.sessions.ensureActive();
    this.bus.publish('session_deleted', { sessionId: id });
    if (wasActive) this.bus.publish('session_switched', { sessionId: active.id });
    this.publishList();
    return active;
  }

  /**
   * Saves a message and publishes it as the `message` event. The first user message of a session
   * nobody has named yet gives it its title.
   */
  saveMessage(input: { sessionId: string; role: MessageRole; content: string; meta?: Record<string, unknown> }): Message {
    const untitled = input.role === 'user' && this.sessions.get(input.sessionId)?.title === DEFAULT_SESSION_TITLE && this.messages.isEmpty(input.sessionId);
    const message = this.messages.insert(input);
    this.sessions.touch(input.sessionId, message.createdAt);
    this.publishMessage(message);
    const title = untitled ? titleFromMessage(input.content) : undefined;
    if (title) {
      this.sessions.rename(input.sessionId, title);
      this.publishList();
    }
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
