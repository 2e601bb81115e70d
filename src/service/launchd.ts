// The LaunchAgent of a service (`svc service install` on macOS), and the reading of its environment
// back. Pure.
//
// Why a LaunchAgent in the user's gui domain and not a LaunchDaemon: the provider CLIs keep their logins
// in the user's login keychain, which only a process of the user's session can read.
// Why EnvironmentVariables carries PATH: launchd starts agents with PATH=/usr/bin:/bin:/usr/sbin:/sbin, where
// no provider CLI (nor Homebrew's or a version manager's tools) is found.
// launchd has no variables file: svc reads SVC_ENV_FILE at start itself (src/service/env-file.ts).
import type { ServiceSpec } from './spec.ts';

export const launchdLabel = (name: string) => `dev.svc.${name}`;

/** launchd's own output files (what the process writes before svc's log file is open, a crash's trace). */
export function launchdLogPaths(spec: Pick<ServiceSpec, 'userHome' | 'name'>): { stdout: string; stderr: string } {
  const dir = `${spec.userHome}/Library/Logs/svc`;
  return { stdout: `${dir}/${spec.name}.out.log`, stderr: `${dir}/${spec.name}.err.log` };
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
export const xmlEscape = (value: string) => value.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
export const xmlUnescape = (value: string) =>
  value.replace(/&(amp|lt|gt|quot|apos|#x[0-9a-fA-F]+|#[0-9]+);/g, (_, e: string) =>
    e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e]!,
  );

export function renderLaunchdPlist(spec: ServiceSpec): string {
  const s = (value: string) => `<string>${xmlEscape(value)}</string>`;
  const logs = launchdLogPaths(spec);
  const env: Array<[string, string]> = [
    ['PATH', spec.path],
    ['HOME', spec.userHome],
    ['SVC_SERVICE', 'launchd'],
    ['SVC_ENV_FILE', spec.envFile],
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `svc service install`; `svc service uninstall` removes it. Your own variables go in SVC_ENV_FILE. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  ${s(launchdLabel(spec.name))}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[spec.node, spec.script, ...spec.args].map((arg) => `    ${s(arg)}`),
    '  </array>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    // restarted whenever it exits, at most once every ThrottleInterval seconds
    '  <key>KeepAlive</key>',
    '  <true/>',
    '  <key>ThrottleInterval</key>',
    '  <integer>10</integer>',
    // SIGKILL 20 s after SIGTERM: svc's own graceful stop gives up after 10 (src/cli/serve.ts)
    '  <key>ExitTimeOut</key>',
    '  <integer>20</integer>',
    '  <key>WorkingDirectory</key>',
    `  ${s(spec.userHome)}`,
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env.flatMap(([key, value]) => [`    <key>${xmlEscape(key)}</key>`, `    ${s(value)}`]),
    '  </dict>',
    '  <key>StandardOutPath</key>',
    `  ${s(logs.stdout)}`,
    '  <key>StandardErrorPath</key>',
    `  ${s(logs.stderr)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

export interface ParsedPlist {
  programArguments: string[];
  environment: Record<string, string>;
}

/** ProgramArguments and EnvironmentVariables of a plist as renderLaunchdPlist writes them (not any plist). */
export function parseLaunchdPlist(text: string): ParsedPlist {
  const strings = (block: string | undefined) => [...(block ?? '').matchAll(/<string>([\s\S]*?)<\/string>/g)].map((m) => xmlUnescape(m[1]!));
  const args = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)?.[1];
  const envBlock = /<key>EnvironmentVariables<\/key>\s*<dict>([\s\S]*?)<\/dict>/.exec(text)?.[1] ?? '';
  const environment: Record<string, string> = {};
  for (const m of envBlock.matchAll(/<key>([\s\S]*?)<\/key>\s*<string>([\s\S]*?)<\/string>/g)) environment[xmlUnescape(m[1]!)] = xmlUnescape(m[2]!);
  return { programArguments: strings(args), environment };
}
