// Chat sessions and messages as the rest of the service sees them: every change is stored and
// then published on the bus. Clearing or deleting a session first stops the agent's work on it.
import type { EventBus } from '../../events/bus.ts';
import type { ChatSession, Message, MessageRole } from '../../protocol/chat.ts';
import { DEFAULT_SESSION_TITLE, type ChatSessionRepo } from './sessions.repo.ts';
import type { MessageRepo } from './messages.repo.ts';
import { notFound } from '../../core/errors.ts';
import { titleFromMessage } from './session-title.ts';

/** What the chat needs of the agent runtime when a conversation goes away. */
export interface SessionRuns {
  /** Stops the run and drops the queue when any of it belongs to this session (nothing of it is saved). */
  stopSessionWork(sessionId: string, reason: string): void;
  /** The next message of this session starts a fresh provider session. */
  forgetProviderSessions(sessionId: string): void;
}

export class ChatService {
  constructor(
    readonly sessions: ChatSessionRepo,
    readonly messages: MessageRepo,
    private readonly bus: EventBus,
    private readonly runs: SessionRuns,
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

  /** Empties a chat session: stops its run, deletes its messages, and forgets its provider sessions. */
  clearSession(sessionId: string): { deleted: number } {
    this.runs.stopSessionWork(sessionId, 'conversation cleared');
    const deleted = this.messages.deleteSession(sessionId);
    this.runs.forgetProviderSessions(sessionId);
    this.bus.publish('chat_cleared', { sessionId });
    return { deleted };
  }

  /**
   * Deletes a session with its messages (its run stopped first). When it was the active one, the
   * most recently used other session (or a fresh one) becomes active. Returns the active session
   * afterwards.
   */
  deleteSession(id: string): ChatSession {
    const wasActive = this.requireSession(id).active;
    this.runs.stopSessionWork(id, 'conversation deleted');
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
  moveToEnd(id: number): void {
    const moved = this.messages.moveToEnd(id);
    if (moved) this.publishMessage(moved, id);
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
    this.bus.publish('session_list', { sessions: this.sessions.list(50) });
  }
}
