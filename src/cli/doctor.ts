// `svc doctor`: what is off, one line per check, and what to do about it (src/doctor/ gathers the facts
// and judges them). Exit 1 when a check fails, 0 otherwise; a server that is not running is a warning
// only: svc runs when it is started. Nothing secret is printed: the checks carry names, never values.
import { resolve } from 'node:path';
import { defaultHome } from '../core/home.ts';
import { diagnose, type Check, type Report } from './doctor/checks.ts';
import { gatherFacts } from './doctor/gather.ts';
import { resolveTarget, TargetError } from './target.ts';

export interface DoctorOptions {
  home?: string;
  url?: string;
  json?: boolean;
}

export async function doctor(options: DoctorOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let target;
  try {
    // the server of this home, as `svc status` finds it; a token from SVC_TOKEN is sent, never shown
    target = resolveTarget({ url: options.url, home: options.home }, env);
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    console.error(`svc: ${err.message}`);
    return 2;
  }
  const home = options.home ? resolve(options.home) : defaultHome(env);
  const result = diagnose(await gatherFacts({ home, target, env }), new Date());
  console.log(options.json ? JSON.stringify(result, null, 2) : renderText(result));
  return result.ok ? 0 : 1;
}

/** One line per check: status, name, what it found, and the fix (a hint on an ok line). */
export function renderText(result: Report): string {
  const width = Math.max(...result.checks.map((c) => c.id.length));
  return result.checks.map((c) => line(c, width)).join('\n');
}

function line(check: Check, width: number): string {
  const fix = check.fix ? ` (${check.status === 'ok' ? 'hint' : 'fix'}: ${check.fix})` : '';
  return `${check.status.padEnd(4)}  ${check.id.padEnd(width)}  ${check.summary}${fix}`;
}
