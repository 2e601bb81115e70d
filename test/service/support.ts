// What the service tests share: a fixed spec for the golden files, the fake service managers, and `svc`
// run from the sources.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSpec, type ServiceSpec } from '../../src/service/spec.ts';
import { SVC_BIN } from '../support/cli.ts';

export const ROOT = join(import.meta.dirname, '../..');
export const FIXTURES = join(ROOT, 'test/fixtures/service');

/** A spec with the awkward characters: paths with a space and a `%`, a `$`, a quote and XML's `&`. */
export function fixedSpec(kind: 'serve' | 'dashboard' = 'serve'): ServiceSpec {
  return buildSpec({
    kind,
    port: kind === 'serve' ? 3457 : 24576,
    home: "/home/u/my svc 100%/.svc",
    userHome: '/home/u',
    node: '/opt/node 20/bin/node',
    script: '/opt/svc & co/lib/$svc "x"/bin/svc.js',
    pathEnv: '/home/u/.local/bin:/usr/local/bin:.::relative/bin:/usr/bin:/usr/local/bin:/opt/tools 2/bin',
    platform: 'linux',
    user: 'u',
  });
}

export function fixedWindowsSpec(): ServiceSpec {
  return buildSpec({
    kind: 'serve',
    port: 3457,
    home: 'C:\\Users\\u\\svc 100%\\.svc',
    userHome: 'C:\\Users\\u',
    node: 'C:\\Program Files\\nodejs\\node.exe',
    script: 'C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules\\svc & co\\bin\\svc.js',
    pathEnv: 'C:\\Windows\\system32;C:\\Program Files\\nodejs\\;relative;C:\\Windows\\system32;C:\\Users\\u\\AppData\\Roaming\\npm',
    platform: 'win32',
    user: 'HOST\\u',
  });
}

/** Compares a rendered file with its golden copy; UPDATE_GOLDEN=1 writes the copy instead. */
export function golden(name: string, actual: string): { expected: string; actual: string } {
  const path = join(FIXTURES, name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  return { expected: readFileSync(path, 'utf8'), actual };
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/**
 * Fake systemctl, loginctl, launchctl and schtasks in a directory of their own: each appends its name
 * and arguments to $FAKE_LOG and answers as the real one does. FAKE_NO_BUS=1: systemctl --user cannot
 * reach its bus; FAKE_LINGER: what loginctl says of Linger (default no); FAKE_FAIL=<word>: a command whose
 * arguments contain the word exits 1.
 */
export function fakeManagers(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const header = (name: string) => `#!/bin/sh
echo "${name} $*" >> "$FAKE_LOG"
case " $* " in *" $FAKE_FAIL "*) echo "${name}: $FAKE_FAIL failed" >&2; exit 1;; esac
`;
  const scripts: Record<string, string> = {
    systemctl: `${header('systemctl')}if [ "$FAKE_NO_BUS" = 1 ] && [ "$1" = --user ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
case "$*" in
  *show-environment*) echo "PATH=/usr/bin";;
  *" show "*) printf 'ActiveState=active\\nSubState=running\\nMainPID=4242\\nNRestarts=3\\n';;
esac
exit 0
`,
    loginctl: `${header('loginctl')}echo "Linger=\${FAKE_LINGER:-no}"
`,
    launchctl: `${header('launchctl')}case "$1" in
  print) printf 'gui/501/dev.svc.svc = {\\n\\tstate = running\\n\\tpid = 777\\n\\truns = 2\\n}\\n';;
  bootout) echo "Boot-out failed: 3: No such process" >&2; exit 3;;
esac
exit 0
`,
    schtasks: `${header('schtasks')}case "$1" in
  /Query) printf 'TaskName:      \\\\svc\\\\svc\\nStatus:        Running\\n';;
  /Create) echo "SUCCESS: The scheduled task \\"svc\\\\svc\\" has successfully been created.";;
esac
exit 0
`,
  };
  for (const [name, text] of Object.entries(scripts)) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `svc <args>`, the built program (npm test builds it first), with exactly `env`. */
export function svcBuilt(args: string[], env: NodeJS.ProcessEnv, timeout = 60_000): CliResult {
  const result = spawnSync(process.execPath, [SVC_BIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The lines a fake manager log holds (none: no file). */
export function logLines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
