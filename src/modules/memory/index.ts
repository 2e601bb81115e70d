// The memory module: Markdown files under <home>/memory indexed in SQLite (words, trigrams, optional
// embeddings), the routes of the spec's "Memory" group, the /memory command, the memory block of each
// run's system prompt, and the optional summaries.
export { MemoryService, type MemoryServiceDeps } from './memory.service.ts';
export type { MemoryRouteDeps } from './memory.routes.ts';
export { memoryCommand } from './memory.commands.ts';
export { memorySettings, type MemorySettings } from './settings.ts';
export type { SummarizeSettings, TranscriptMessage } from './summarize.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadMemoryRoutes = () => import('./memory.routes.ts').then((m) => m.memoryRoutes);
