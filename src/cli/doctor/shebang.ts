// The program a script's `#!` line runs. Pure. `svc doctor` reads it when a provider CLI does not
// answer `--version`: an npm-installed CLI starts with `#!/usr/bin/env node`, which finds node through
// PATH, so a PATH without node's directory (a service's) breaks a CLI that works in a terminal.

export interface Interpreter {
  /** A bare name (looked up on PATH) when `viaEnv`, else the absolute path on the line. */
  program: string;
  viaEnv: boolean;
}

/** The interpreter of a file starting with `head`, or null when it has no `#!` line. */
export function parseShebang(head: string): Interpreter | null {
  if (!head.startsWith('#!')) return null;
  const words = head.slice(2).split(/\r?\n/, 1)[0]!.trim().split(/\s+/).filter(Boolean);
  const first = words[0];
  if (!first) return null;
  if (!/(^|\/)env$/.test(first)) return { program: first, viaEnv: false };
  // `env -S node --flags` and `env VAR=x node`: the program is the first word that is neither
  const program = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('='));
  return program ? { program, viaEnv: true } : null;
}
