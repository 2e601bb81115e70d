// The web-ai skill's time limit that its client needs, apart from its zod schemas (types.ts): the core
// server makes the client at start without building them.

/** How long query and code wait when they are not told (ms). */
export const DEFAULT_ANSWER_TIMEOUT_MS = 300_000;
