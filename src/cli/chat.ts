// `svc chat`: sends a message to a running server and prints the answer as it streams.
// Text goes to stdout; thinking and tool steps go to stderr, so `svc chat … > answer.md` keeps only the answer.
import type { IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { jsonOf, request, textOf } from './http-client.ts';
import { uploadFiles } from './upload.ts';
import { authHeaders, type ServerTarget } from './target.ts';

export interface ChatOptions extends ServerTarget {
  sessionId?: string;
  quiet: boolean;
  /** Local files to upload first and attach to the message. */
  attach?: string[];
}

const dim = (text: string) => (process.stderr.isTTY ? `\x1b[2m${text}\x1b[0m` : text);

/** Returns the exit code: 0 ok, 1 error, 130 stopped (an attachment that cannot be read throws LocalFileError). */
export async function chat(prompt: string, options: ChatOptions): Promise<number> {
  const uploaded = options.attach?.length ? await uploadFiles(options.attach, options) : [];
  if (typeof uploaded === 'number') return uploaded;
  const attachments = uploaded.map((file) => file.filename);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...authHeaders(options) };
  let response: IncomingMessage;
  try {
    response = await request(`${options.url}/api/message`, {
      method: 'POST',
      headers,
      pin: options.pin,
      body: JSON.stringify({
        prompt,
        ...(attachments.length ? { attachments } : {}),
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      }),
    });
  } catch (err) {
    console.error(`svc: cannot reach ${options.url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
  if (response.statusCode !== 200) {
    const answer = await textOf(response);
    console.error(`svc: ${answer.status} ${String(jsonOf(answer).message ?? response.statusMessage)}`);
    return 1;
  }
  let status = 'error';
  let wroteText = false;
  const lines = createInterface({ input: response });
  for await (const raw of lines) {
    if (!raw) continue;
    const line = JSON.parse(raw) as { type: string; content?: string; name?: string; status?: string; reason?: string; fix?: string; output?: string };
    if (line.type === 'text') {
      process.stdout.write(line.content ?? '');
      wroteText = true;
    } else if (line.type === 'thinking' && !options.quiet) {
      process.stderr.write(dim(`(thinking) ${line.content ?? ''}\n`));
    } else if (line.type === 'tool' && !options.quiet) {
      process.stderr.write(dim(`[${line.name} ${line.status}]\n`));
    } else if (line.type === 'done') {
      status = line.status ?? 'error';
      if (wroteText) process.stdout.write('\n');
      if (status !== 'ok') console.error(`svc: run ${status}${line.reason ? `: ${line.reason}` : ''}${line.fix ? `\nTo fix it, run: ${line.fix}` : ''}`);
    }
  }
  return status === 'ok' ? 0 : status === 'stopped' ? 130 : 1;
}
