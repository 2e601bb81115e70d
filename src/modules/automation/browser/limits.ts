// The browser skill's port and time limits, apart from its zod schemas (types.ts): the client and the
// core server's composition read these without building the schemas.

export const DEFAULT_BROWSER_PORT = 3459;

/** Default timeouts (ms) of the actions that do not say. */
export const DEFAULT_TIMEOUTS = {
  open: 30_000,
  action: 10_000,
  extract: 5_000,
  eval: 30_000,
  wait: 30_000,
  screenshot: 30_000,
  fetch: 30_000,
} as const;

/** Longest timeout any single action may ask for (ms). Keeps every request bounded. */
export const MAX_TIMEOUT_MS = 300_000;
