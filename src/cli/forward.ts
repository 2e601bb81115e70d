// `svc web-routing …` and `svc vision-click …`: run the slash command on the running server (its
// rules and browser live there) and print the answer. Used by people and by the agent's CLIs.
import { jsonOf, requestText } from './http-client.ts';
import { authHeaders, type ServerTarget } from './target.ts';

export async function forwardCommand(name: string, args: string[], target: ServerTarget): Promise<number> {
  const text = [`/${name}`, ...args.map(quoteArg)].join(' ');
  try {
    const response = await requestText(`${target.url}/api/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(target) },
      body: JSON.stringify({ text }),
      pin: target.pin,
    });
    const body = response.text;
    if (!response.ok) {
      console.error(`svc ${name}: ${String(jsonOf(response).message ?? `HTTP ${response.status}`)}`);
      return 1;
    }
    let status = 'ok';
    for (const line of body.split('\n').filter(Boolean)) {
      const event = JSON.parse(line) as { type: string; content?: string; status?: string; reason?: string };
      if (event.type === 'text') process.stdout.write(`${event.content ?? ''}\n`);
      if (event.type === 'done') status = event.status ?? 'error';
    }
    return status === 'ok' ? 0 : 1;
  } catch (err) {
    console.error(`svc ${name}: cannot reach ${target.url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
}

/** The skill's own usage text, printed without a server. */
export async function skillHelp(name: 'web-routing' | 'vision-click'): Promise<string> {
  const text =
    name === 'web-routing'
      ? (await import('../modules/automation/web-routing/index.ts')).WEB_ROUTING_USAGE.replace(/\/web-routing/g, 'svc web-routing')
      : (await import('../modules/automation/vision-click/index.ts')).VISION_CLICK_HELP.replace(/\/vision-click/g, 'svc vision-click');
  return `${text}\n\nOptions before the subcommand: --url <url>, --home <dir>, --token <token> (see \`svc --help\`).`;
}

/** Re-quotes an argument the shell already split, so the slash-command parser sees the same words. */
export function quoteArg(arg: string): string {
  if (arg !== '' && !/[\s"'\\]/.test(arg)) return arg;
  return `"${arg.replace(/(["\\])/g, '\\$1')}"`;
}
