// How many messages wait, as the chat shows it. The runtime has one queue for every chat session (one run
// at a time), but a chat's "N queued" is about its own messages: another session's wakeup or worker
// result waiting behind the same run is not queued in this chat. Pure.

export interface QueueCount {
  /** Waiting in the session the chat shows (the active one); every waiting message when there is none. */
  pending: number;
  /** Waiting in all sessions. */
  total: number;
  /** Waiting per chat session (sessions with none are left out). */
  sessions: Record<string, number>;
}

/** `sessionIds`: the chat session of each waiting message, in queue order. */
export function countQueue(sessionIds: readonly string[], shown?: string): QueueCount {
  const sessions: Record<string, number> = {};
  for (const id of sessionIds) sessions[id] = (sessions[id] ?? 0) + 1;
  return { pending: shown === undefined ? sessionIds.length : (sessions[shown] ?? 0), total: sessionIds.length, sessions };
}
