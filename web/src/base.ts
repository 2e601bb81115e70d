// Where the page is served from: `/` on `svc serve`, `/i/<instanceId>/` through the manager's
// proxy. Every API, stream and media URL is resolved against it, never against the origin's root,
// so the same build works at both places.

/** The page's directory without its trailing slash, e.g. `http://127.0.0.1:24576/i/inst_1`. */
export const BASE = typeof location === 'undefined' ? '' : new URL('.', location.href).href.replace(/\/$/, '');

/** The URL of a server path (`/api/…`, `/media/…`) for this page. */
export const at = (path: string): string => `${BASE}${path}`;
