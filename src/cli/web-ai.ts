// `svc web-ai …`: the web-ai skill from a terminal (and from the agent's shell), as a client of the running
// core server: the same parser and rendering as `/web-ai`, the routes over HTTP, `--json` for the answer as
// JSON. Honours --url / SVC_URL and SVC_TOKEN.
import { AppError } from '../core/errors.ts';
import { httpTransport, loadWebAiCommands, webAiClient } from '../modules/automation/web-ai/index.ts';

export async function webAiCommand(args: string[], opts: { url: string; token?: string; json: boolean }): Promise<number> {
  const { parseWebAiArgs, runWebAiCall, WEB_AI_HELP } = await loadWebAiCommands();
  try {
    const call = parseWebAiArgs(args.map((value) => ({ value, quoted: false })));
    if (call.op === 'help') {
      console.log(WEB_AI_HELP.replaceAll('/web-ai ', 'svc web-ai '));
      return 0;
    }
    const { text, data } = await runWebAiCall(call, webAiClient(httpTransport(opts.url, opts.token)));
    console.log(opts.json ? JSON.stringify(data, null, 2) : text);
    return 0;
  } catch (err) {
    if (opts.json && err instanceof AppError) console.log(JSON.stringify(err.toBody(), null, 2));
    console.error(`svc web-ai: ${err instanceof AppError ? `${err.message} (${err.code})` : (err as Error).message}`);
    return 1;
  }
}
