// The systemd unit of a service (`svc service install` on Linux), and the reading of one back. Pure.
//
// Why its settings:
// - After/Wants=network-online.target: svc itself listens on loopback, but the provider CLIs it runs
//   reach the network at once; a boot start before the network is up would fail their first calls.
// - Restart=always, RestartSec=2: a crash (or an exit from a fatal error) is followed by a new start,
//   2 s later so a fault at start does not spin.
// - KillMode=mixed: SIGTERM goes to svc alone, which stops its provider CLIs' process groups itself and
//   then exits; whatever is left when the stop times out gets SIGKILL, the whole cgroup.
// - TimeoutStopSec=20: svc's own graceful stop gives up after 10 s (src/cli/serve.ts); 20 s leaves room
//   for that before systemd kills.
// - Environment=PATH: a user manager's PATH is systemd's default, not the user's, so the provider CLIs
//   (often in ~/.local/bin, ~/.npm-global/bin, a version manager's directory) would not be found.
// - EnvironmentFile=-: the user's variables (the leading `-`: a missing file is no error).
import type { ServiceSpec } from './spec.ts';

export interface SystemdOptions {
  /** A system unit (/etc/systemd/system) that runs as spec.user, instead of a user unit. */
  system?: boolean;
}

/** `%` starts a specifier in nearly every unit setting; `%%` is a literal one. */
const specifierSafe = (value: string) => value.replaceAll('%', '%%');

/** A C escape systemd's unquoting reads back, for the characters a quoted word cannot hold as they are. */
const C_ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/** One word of a setting that systemd splits into words (ExecStart=, Environment=): quoted when it must be. */
function word(value: string): string {
  if (value !== '' && !/[\s"'\\]/.test(value)) return value;
  return `"${value.replace(/[\\"\n\t\r]/g, (c) => C_ESCAPES[c]!)}"`;
}

/** An ExecStart= word: `$` would also start a variable substitution there (`$$` is a literal one). */
const execWord = (value: string) => word(specifierSafe(value).replaceAll('$', '$$$$'));

/** An Environment= assignment (no `$` substitution in Environment=). */
const envWord = (name: string, value: string) => word(specifierSafe(`${name}=${value}`));

export function renderSystemdUnit(spec: ServiceSpec, options: SystemdOptions = {}): string {
  const lines = [
    '# Written by `svc service install`; `svc service uninstall` removes it.',
    '# Your own variables go in the EnvironmentFile below (this file may be rewritten by a re-install).',
    '[Unit]',
    `Description=${specifierSafe(spec.description)}`,
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    ...(options.system && spec.user ? [`User=${specifierSafe(spec.user)}`] : []),
    `ExecStart=${[spec.node, spec.script, ...spec.args].map(execWord).join(' ')}`,
    `WorkingDirectory=${specifierSafe(spec.userHome)}`,
    `Environment=${envWord('PATH', spec.path)}`,
    `Environment=${envWord('HOME', spec.userHome)}`,
    `Environment=${envWord('SVC_SERVICE', 'systemd')}`,
    `EnvironmentFile=-${specifierSafe(spec.envFile)}`,
    'Restart=always',
    'RestartSec=2',
    'KillMode=mixed',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=20',
    '',
    '[Install]',
    `WantedBy=${options.system ? 'multi-user.target' : 'default.target'}`,
    '',
  ];
  return lines.join('\n');
}

const C_UNESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

/**
 * The words of a setting as systemd splits them: whitespace separates, double or single quotes group,
 * a backslash escapes the next character (C escapes \n \t \r read as such). Specifiers are left as
 * they are (`%%` stays two characters): the caller knows which setting it reads.
 */
export function splitSystemdWords(value: string): string[] {
  const words: string[] = [];
  let current: string | null = null;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) {
      const next = value[++i]!;
      current = (current ?? '') + (C_UNESCAPES[next] ?? next);
    } else if (quote) {
      if (c === quote) quote = null;
      else current = (current ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      current ??= '';
    } else if (/\s/.test(c)) {
      if (current !== null) words.push(current);
      current = null;
    } else current = (current ?? '') + c;
  }
  if (current !== null) words.push(current);
  return words;
}

export interface ParsedUnit {
  /** ExecStart= split into its words, specifiers and `$$` read back. */
  execStart: string[];
  /** The Environment= assignments, later ones over earlier ones. */
  environment: Record<string, string>;
  /** EnvironmentFile= paths, without the `-` that makes a missing one no error. */
  environmentFiles: string[];
  workingDirectory?: string;
  user?: string;
}

const unspecifier = (value: string) => value.replaceAll('%%', '%');

/** The settings of a unit that say what its process runs with (the ones renderSystemdUnit writes). */
export function parseSystemdUnit(text: string): ParsedUnit {
  const unit: ParsedUnit = { execStart: [], environment: {}, environmentFiles: [] };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';') || line.startsWith('[')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (key === 'ExecStart') unit.execStart = splitSystemdWords(value).map((w) => unspecifier(w).replaceAll('$$', '$'));
    else if (key === 'Environment') {
      for (const assignment of splitSystemdWords(value).map(unspecifier)) {
        const at = assignment.indexOf('=');
        if (at > 0) unit.environment[assignment.slice(0, at)] = assignment.slice(at + 1);
      }
    } else if (key === 'EnvironmentFile') unit.environmentFiles.push(unspecifier(value.replace(/^-/, '')));
    else if (key === 'WorkingDirectory') unit.workingDirectory = unspecifier(value);
    else if (key === 'User') unit.user = unspecifier(value);
  }
  return unit;
}
