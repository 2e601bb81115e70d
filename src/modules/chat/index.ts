// The chat module: chat sessions and their messages (storage, search, titles), the routes of the
// spec's "Messages and sessions" group, and the /sessions and /new commands.
export { ChatService, type SessionRuns } from './chat.service.ts';
export { ChatSessionRepo, DEFAULT_SESSION_TITLE } from './sessions.repo.ts';
export { MessageRepo } from './messages.repo.ts';
export type { ChatRouteDeps } from './chat.routes.ts';
export { chatCommands } from './chat.commands.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadChatRoutes = () => import('./chat.routes.ts').then((m) => m.chatRoutes);
