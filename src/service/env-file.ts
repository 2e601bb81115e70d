// The user's variables file of a service, `<home>/service.env`: KEY=VALUE lines the service runs with
// (API keys, a proxy, SVC_* settings). systemd reads it itself (EnvironmentFile=); under launchd and
// Task Scheduler, which have no such setting, svc reads it at start. Created once, with a header that
// explains it; a re-install never overwrites it and an uninstall keeps it: it is the user's file.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const ENV_FILE_HEADER = `# Environment variables of the svc service, one KEY=VALUE a line; lines starting with # are comments.
# The service does not run from your shell, so what your shell profile exports is not set here:
# put the variables svc and the provider CLIs need here (API keys, HTTPS_PROXY, SVC_* settings).
# Keep each value on one line; quotes around a value are removed. After a change: svc service restart
# svc service install wrote this file once; it never overwrites it, and svc service uninstall keeps it.
#
# EXAMPLE_API_KEY=your-key
`;

/**
 * The variables of an env file. The syntax is the part systemd's EnvironmentFile= and svc agree on:
 * `KEY=VALUE`, an optional `export ` before the key, whitespace around both trimmed, one pair of matching
 * quotes around the value removed, `#` and `;` comment lines. A line that is none of these is skipped.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2]!;
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) value = value.slice(1, -1);
    vars[match[1]!] = value;
  }
  return vars;
}

/** The variables of an env file, or undefined when there is none (any other read error is thrown). */
export function readEnvFile(path: string): Record<string, string> | undefined {
  try {
    return parseEnvFile(readFileSync(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Creates the env file with its header unless it exists; returns whether it created it. */
export function ensureEnvFile(path: string): boolean {
  if (existsSync(path)) return false;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // 0600: it is where API keys go
  writeFileSync(path, ENV_FILE_HEADER, { mode: 0o600, flag: 'wx' });
  return true;
}
