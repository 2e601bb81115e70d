// The Task Scheduler task of a service (`svc service install` on Windows), and the reading of its
// command back. Pure: the XML as text; the installer writes it as UTF-16LE with a byte-order mark, the
// encoding its declaration names (schtasks /XML reads that).
//
// Why its settings:
// - LogonTrigger for the user: the task starts when the user logs on (Windows has no user manager
//   that starts at boot for a user that has not).
// - LogonType S4U: the task runs whether or not the user is logged on and without a console window (an
//   InteractiveToken task would open one, which closing would end svc), and without storing the
//   user's password. It cannot reach network shares with the user's credentials; svc does not need to.
// - ExecutionTimeLimit PT0S: no limit (the default stops a task after 72 hours).
// - RestartOnFailure PT1M x 999: Task Scheduler's nearest to "restart always" (one minute is its shortest interval).
// - MultipleInstancesPolicy IgnoreNew: a logon while it runs does not start a second server on the same home.
// - DisallowStartIfOnBatteries/StopIfGoingOnBatteries false: a laptop unplugged keeps its service.
// - Priority 5: the default, 7, runs the task below normal priority.
//
// Task Scheduler sets no environment variables of its own choosing: the task runs with the user's
// environment (their PATH included). svc finds its variables file at `<home>/service.env` by default.
// It expands %NAME% of a defined variable in Command, Arguments and WorkingDirectory, and has no escape
// for it: a path holding such a pair would be changed.
import { xmlEscape, xmlUnescape } from './launchd.ts';
import type { ServiceSpec } from './spec.ts';

export const taskName = (name: string) => `svc\\${name}`;

/**
 * One argument as the Microsoft C runtime (and Node's process.argv) splits a command line: quoted when it
 * holds a space, a tab or a quote, or is empty; a quote escaped with a backslash, and the backslashes
 * before a quote (or the closing quote) doubled.
 */
export function windowsArg(value: string): string {
  if (value !== '' && !/[\s"]/.test(value)) return value;
  let out = '"';
  let slashes = 0;
  for (const c of value) {
    if (c === '\\') {
      slashes++;
      continue;
    }
    out += '\\'.repeat(c === '"' ? slashes * 2 + 1 : slashes) + c;
    slashes = 0;
  }
  return `${out}${'\\'.repeat(slashes * 2)}"`;
}

/** The inverse of windowsArg over a whole command line (the rules the C runtime follows). */
export function splitWindowsArgs(line: string): string[] {
  const args: string[] = [];
  let current: string | null = null;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\') {
      let n = 0;
      for (; line[i] === '\\'; i++) n++;
      if (line[i] === '"') {
        // 2n backslashes and a quote: n backslashes, and the quote opens or closes; 2n+1: n and a literal quote
        current = (current ?? '') + '\\'.repeat(Math.floor(n / 2));
        if (n % 2) current += '"';
        else quoted = !quoted;
      } else {
        current = (current ?? '') + '\\'.repeat(n);
        i--;
      }
    } else if (c === '"') {
      quoted = !quoted;
      current ??= '';
    } else if (!quoted && (c === ' ' || c === '\t')) {
      if (current !== null) args.push(current);
      current = null;
    } else current = (current ?? '') + c;
  }
  if (current !== null) args.push(current);
  return args;
}

export function renderTaskXml(spec: ServiceSpec): string {
  const e = xmlEscape;
  const user = spec.user ?? '';
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.4" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    `    <Description>${e(`${spec.description}. Written by svc service install; svc service uninstall removes it.`)}</Description>`,
    `    <URI>\\${e(taskName(spec.name))}</URI>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    '    <LogonTrigger>',
    '      <Enabled>true</Enabled>',
    `      <UserId>${e(user)}</UserId>`,
    '    </LogonTrigger>',
    '  </Triggers>',
    '  <Principals>',
    '    <Principal id="Author">',
    `      <UserId>${e(user)}</UserId>`,
    '      <LogonType>S4U</LogonType>',
    '      <RunLevel>LeastPrivilege</RunLevel>',
    '    </Principal>',
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    '    <AllowHardTerminate>true</AllowHardTerminate>',
    '    <StartWhenAvailable>true</StartWhenAvailable>',
    '    <AllowStartOnDemand>true</AllowStartOnDemand>',
    '    <Enabled>true</Enabled>',
    '    <Hidden>true</Hidden>',
    '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
    '    <Priority>5</Priority>',
    '    <RestartOnFailure>',
    '      <Interval>PT1M</Interval>',
    '      <Count>999</Count>',
    '    </RestartOnFailure>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    `      <Command>${e(spec.node)}</Command>`,
    // Task Scheduler sets no variables: `--service schtasks` tells svc it runs as the task (what SVC_SERVICE says elsewhere)
    `      <Arguments>${e([spec.script, ...spec.args, '--service', 'schtasks'].map(windowsArg).join(' '))}</Arguments>`,
    `      <WorkingDirectory>${e(spec.userHome)}</WorkingDirectory>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\r\n');
}

/** The task file's bytes: UTF-16LE with a byte-order mark, as its declaration says. */
export const encodeTaskXml = (xml: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);

/** A task file's text, from UTF-16 (with its mark) or UTF-8 bytes. */
export function decodeTaskXml(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  return bytes.toString('utf8');
}

/** The command of a task as renderTaskXml writes it: the program, then its arguments. */
export function parseTaskCommand(xml: string): string[] {
  const command = /<Command>([\s\S]*?)<\/Command>/.exec(xml)?.[1];
  const args = /<Arguments>([\s\S]*?)<\/Arguments>/.exec(xml)?.[1];
  return command === undefined ? [] : [xmlUnescape(command), ...splitWindowsArgs(xmlUnescape(args ?? ''))];
}
