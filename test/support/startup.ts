// `svc` as a user runs it, for test/cli/startup.test.ts and the start-up benchmark (bench/startup.ts,
// which measures it: bench/support/start-probe.ts).
export const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;

/**
 * `svc` as a user runs it: the executable itself (its shebang line names node), except on Windows,
 * which has no shebang.
 */
export function svcCommand(args: string[]): { command: string; args: string[] } {
  return process.platform === 'win32' ? { command: process.execPath, args: [BIN, ...args] } : { command: BIN, args };
}
