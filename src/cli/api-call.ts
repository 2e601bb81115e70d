// One JSON call of a client command to its server (node:http), printed as text or as the JSON answer.
import { jsonOf, requestText, type TextResponse } from './http-client.ts';
import { authHeaders, type ServerTarget } from './target.ts';

export interface ApiCall {
  /** What an error message names, e.g. `goal done`. */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  render(answer: any): string;
}

/** Sends one call; prints the rendered answer (or the JSON) and returns the exit code (0 ok, 1 error). */
export async function runCall(call: ApiCall, target: ServerTarget, json: boolean): Promise<number> {
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(target) };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let response: TextResponse;
  try {
    response = await requestText(`${target.url}${call.path}`, { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body), pin: target.pin });
  } catch (err) {
    console.error(`svc ${call.name}: cannot reach ${target.url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
  const answer = jsonOf(response);
  if (!response.ok) {
    console.error(`svc ${call.name}: ${String(answer.message ?? `HTTP ${response.status}`)}`);
    return 1;
  }
  console.log(json ? JSON.stringify(answer, null, 2) : call.render(answer));
  return 0;
}
