// Who may approve or cancel a lifecycle confirmation: a person, not a process on the same machine that
// happens to reach loopback (an agent's shell, a prompt-injected tool). A request is a person's when it
// carries no agent run credential and either comes from the console page itself (a same-origin fetch,
// as the browser's fetch metadata says, with the console's own header) or presents the server's token.
import type { IncomingHttpHeaders } from 'node:http';
import { tokensEqual } from '../../core/token.ts';
import { RUN_TOKEN_HEADER } from '../../protocol/caller.ts';

/** Sent by the dashboard page's fetches (web/dashboard/api.ts). */
export const CONSOLE_HEADER = 'x-svc-console';

/** Why a request is not a person's decision, or null when it is. `presented`: its bearer token, if any. */
export function notAPerson(headers: IncomingHttpHeaders, presented: string | undefined, token: string): string | null {
  if (headers[RUN_TOKEN_HEADER] !== undefined) return "it carries an agent run's credential";
  if (presented !== undefined) return tokensEqual(token, presented) ? null : 'its token is wrong';
  // Sec-Fetch-* and Origin are set by the browser itself; a page of another origin cannot send them so
  const page = headers[CONSOLE_HEADER] === '1' && headers['sec-fetch-site'] === 'same-origin' && headers['sec-fetch-mode'] === 'cors' && typeof headers.origin === 'string';
  return page ? null : "it comes neither from the console page (a same-origin fetch) nor with the server's token";
}
