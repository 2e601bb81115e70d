// svc doctor's judgements (src/cli/doctor/checks.ts): each check, from plain facts, for each status it can
// give, with its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  diagnose,
  diskCheck,
  fleetCheck,
  providerCheck,
  pushCheck,
  report,
  serverCheck,
  serviceCheck,
  tlsCheck,
  type DiskFacts,
  type Facts,
  type ProviderContext,
  type ProviderFacts,
} from '../../src/cli/doctor/checks.ts';
import { parseShebang } from '../../src/cli/doctor/shebang.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

test('server: running, with its version and service manager; not running is a warning with svc serve', () => {
  const up = serverCheck({ url: 'http://127.0.0.1:3457', reachable: true, version: '0.1.0', service: 'systemd' }, true);
  assert.equal(up.status, 'ok');
  assert.match(up.summary, /svc 0\.1\.0 is running at http:\/\/127\.0\.0\.1:3457, as a service \(systemd\)/);
  assert.equal(up.fix, undefined);
  assert.match(serverCheck({ url: 'http://x', reachable: true, version: '1', service: null }, false).summary, /not as a service/);

  const down = serverCheck({ url: 'http://127.0.0.1:3457', reachable: false, error: 'connect ECONNREFUSED' }, false);
  assert.equal(down.status, 'warn');
  assert.match(down.summary, /no svc server answers at http:\/\/127\.0\.0\.1:3457 \(connect ECONNREFUSED\)/);
  assert.match(down.fix!, /svc serve/);
  assert.match(down.fix!, /svc service install/);
  // installed but not answering: start it, and its log says why it stopped
  assert.match(serverCheck({ url: 'http://x', reachable: false, error: 'e' }, true).fix!, /svc service start.*svc service logs/);
});

test('service: not installed is ok with the hint; installed names its manager, file and a home that differs', () => {
  const none = serviceCheck({ installed: null, home: '/h/.svc' });
  assert.deepEqual(none, { id: 'service', status: 'ok', summary: 'not installed (svc runs when you start it)', fix: 'svc service install' });
  const same = serviceCheck({ installed: { manager: 'systemd', file: '/u/.config/systemd/user/svc.service', home: '/h/.svc' }, home: '/h/.svc' });
  assert.equal(same.status, 'ok');
  assert.equal(same.summary, 'installed (systemd, /u/.config/systemd/user/svc.service)');
  const other = serviceCheck({ installed: { manager: 'launchd', file: '/f.plist', home: '/other' }, home: '/h/.svc' });
  assert.match(other.summary, /it serves \/other, not \/h\/\.svc/);
});

const ctx: ProviderContext = { underService: false, platform: 'linux', envFile: '/h/.svc/service.env' };
const serviceCtx: ProviderContext = { ...ctx, underService: true };

const provider = (over: Partial<ProviderFacts> = {}): ProviderFacts => ({
  id: 'claude',
  displayName: 'Claude Code',
  command: 'claude',
  isDefault: true,
  defaultProvider: 'claude',
  path: '/bin/claude',
  version: '2.1.0',
  credentials: { state: 'found', source: '~/.claude/.credentials.json' },
  readiness: { state: 'ready', summary: 'Claude Code is installed and has a login.' },
  ...over,
});

const notInstalled = { path: null, version: null, credentials: { state: 'missing' }, readiness: { state: 'not_installed', summary: 'Claude Code is not installed.', fix: 'npm install -g @anthropic-ai/claude-code' } } as const;
const loggedOut = { credentials: { state: 'missing' }, readiness: { state: 'needs_login', summary: 'Claude Code is installed but not logged in: run claude in a terminal and log in with /login.', fix: 'claude' } } as const;

test('provider: found, run and logged in is ok, with the version and where the login is', () => {
  const check = providerCheck(provider(), ctx);
  assert.equal(check.id, 'provider.claude');
  assert.equal(check.status, 'ok');
  assert.equal(check.summary, 'Claude Code 2.1.0 at /bin/claude, logged in (~/.claude/.credentials.json), the default provider');
  // a login svc cannot see is no warning: the CLI says so itself when it runs
  const unknown = providerCheck(provider({ id: 'copilot', isDefault: false, credentials: { state: 'unknown' }, readiness: { state: 'login_unknown', summary: '', fix: 'copilot' } }), ctx);
  assert.equal(unknown.status, 'ok');
  assert.match(unknown.summary, /svc cannot see its login \(if it says it is not logged in: copilot\)/);
});

test('provider: missing fails for the default provider only, and the fix is its install command', () => {
  const missingDefault = providerCheck(provider(notInstalled), ctx);
  assert.equal(missingDefault.status, 'fail');
  assert.equal(missingDefault.summary, "Claude Code: 'claude' is not on PATH (the default provider)");
  assert.equal(missingDefault.fix, 'npm install -g @anthropic-ai/claude-code; or give its path in Settings (agent.executables)');

  const missingOther = providerCheck(provider({ ...notInstalled, isDefault: false, defaultProvider: 'codex' }), ctx);
  assert.equal(missingOther.status, 'warn');
  assert.match(missingOther.summary, /the default provider is codex/);

  // the service keeps the PATH it was installed with
  const underService = providerCheck(provider(notInstalled), serviceCtx);
  assert.match(underService.summary, /'claude' is not on the service's PATH/);
  assert.match(underService.fix!, /npm install -g @anthropic-ai\/claude-code, then svc service install again from a shell where it runs/);

  // a path from the settings that is not there
  assert.match(providerCheck(provider({ ...notInstalled, command: '/opt/claude' }), ctx).summary, /\/opt\/claude is not an executable file/);
});

test('provider: custom without a command is ok unless it is the default', () => {
  const custom = { id: 'custom', displayName: 'Custom command', command: '', ...notInstalled, readiness: { state: 'not_installed', summary: 'Custom command is not set up: give its command in Settings (agent.customCommand).' } } as const;
  assert.equal(providerCheck(provider({ ...custom, isDefault: false }), ctx).status, 'ok');
  const asDefault = providerCheck(provider({ ...custom, isDefault: true, defaultProvider: 'custom' }), ctx);
  assert.equal(asDefault.status, 'fail');
  assert.match(asDefault.fix!, /agent\.customCommand/);
});

test('provider: a #!/usr/bin/env node CLI without node on the service PATH fails with the PATH fix', () => {
  const broken = provider({ version: null, runError: '--version exited with code 127', interpreter: { program: 'node', viaEnv: true, found: false } });
  const check = providerCheck(broken, serviceCtx);
  assert.equal(check.status, 'fail');
  assert.equal(check.summary, "Claude Code at /bin/claude cannot run: its first line (#!/usr/bin/env node) finds no node on the service's PATH");
  assert.equal(check.fix, "add node's directory to the service's PATH: run svc service install again from a shell where claude works, or set PATH in /h/.svc/service.env and svc service restart");
  assert.equal(providerCheck(broken, ctx).fix, "add node's directory to PATH");
  // a run that fails otherwise: fails too (even when not the default), and says to run it by hand
  const other = providerCheck(provider({ isDefault: false, version: null, runError: 'version probe timed out' }), ctx);
  assert.equal(other.status, 'fail');
  assert.equal(other.fix, 'run /bin/claude --version in a terminal to see why');
  // an absolute interpreter that is gone
  assert.match(providerCheck(provider({ runError: 'x', interpreter: { program: '/usr/local/bin/node', viaEnv: false, found: false } }), ctx).summary, /\(#!\/usr\/local\/bin\/node\) finds no \/usr\/local\/bin\/node$/);
});

test("provider: logged out gives the provider's own login command; on macOS the keychain note", () => {
  const check = providerCheck(provider(loggedOut), ctx);
  assert.equal(check.status, 'fail');
  assert.match(check.summary, /not logged in \(the default provider\)/);
  assert.equal(check.summary, 'Claude Code 2.1.0 at /bin/claude, not logged in (the default provider)');
  assert.equal(check.fix, 'run claude in a terminal and log in');
  assert.equal(providerCheck(provider({ ...loggedOut, isDefault: false }), ctx).status, 'warn');
  // a key instead of a login: its variable's name
  assert.equal(providerCheck(provider({ ...loggedOut, loginKey: 'ANTHROPIC_API_KEY' }), ctx).fix, 'run claude in a terminal and log in, or set ANTHROPIC_API_KEY in Settings (agent.env)');

  const mac = providerCheck(provider(loggedOut), { ...serviceCtx, platform: 'darwin' });
  assert.match(mac.fix!, /^run claude in a terminal and log in; on macOS a login kept only in the keychain is invisible to svc and to a launchd service: put an API key in \/h\/\.svc\/service\.env/);
});

test('provider: one still being checked is a warning', () => {
  const check = providerCheck(provider({ pending: true }), ctx);
  assert.equal(check.status, 'warn');
  assert.equal(check.fix, 'run claude --version in a terminal');
});

const disk = (over: Partial<DiskFacts>): DiskFacts => ({ home: '/h/.svc', exists: true, bytes: 3 * MiB, truncated: false, freeBytes: 50 * GiB, ...over });

test('disk: ok above 1 GiB free, warn below, fail below 100 MiB', () => {
  const ok = diskCheck(disk({}));
  assert.equal(ok.status, 'ok');
  assert.equal(ok.summary, '/h/.svc holds 3.0 MiB; 50.0 GiB free');
  const warn = diskCheck(disk({ freeBytes: 512 * MiB }));
  assert.equal(warn.status, 'warn');
  assert.match(warn.summary, /only 512\.0 MiB free/);
  assert.match(warn.fix!, /free space/);
  assert.equal(diskCheck(disk({ freeBytes: 99 * MiB })).status, 'fail');
  assert.equal(diskCheck(disk({ freeBytes: 100 * MiB })).status, 'warn');
  assert.match(diskCheck(disk({ truncated: true })).summary, /holds more than 3\.0 MiB/);
  assert.match(diskCheck(disk({ exists: false, bytes: 0 })).summary, /does not exist yet/);
  assert.equal(diskCheck(disk({ freeBytes: null })).status, 'warn');
});

test('tls: none is plain HTTP; warn under 30 days; fail when expired or unreadable', () => {
  const now = new Date('2025-01-01T00:00:00Z');
  const cert = (validTo: string) => ({ configured: true as const, file: '/c.pem', source: 'SVC_TLS_CERT of the service', validTo: new Date(validTo) });
  assert.deepEqual(tlsCheck({ configured: false, serverHttps: false }, now), { id: 'tls', status: 'ok', summary: 'plain HTTP on loopback' });
  assert.match(tlsCheck({ configured: false, serverHttps: true }, now).summary, /serves HTTPS/);
  const fine = tlsCheck(cert('2025-06-01T00:00:00Z'), now);
  assert.equal(fine.status, 'ok');
  assert.match(fine.summary, /valid until 2025-06-01 \(151 days\)/);
  const soon = tlsCheck(cert('2025-01-11T00:00:00Z'), now);
  assert.equal(soon.status, 'warn');
  assert.match(soon.summary, /expires in 10 days/);
  assert.match(soon.fix!, /renew \/c\.pem/);
  const expired = tlsCheck(cert('2024-12-01T00:00:00Z'), now);
  assert.equal(expired.status, 'fail');
  assert.match(expired.summary, /expired on 2024-12-01/);
  const unreadable = tlsCheck({ configured: true, file: '/c.pem', source: '--tls-cert of the service', error: 'no such file' }, now);
  assert.equal(unreadable.status, 'fail');
  assert.match(unreadable.summary, /\/c\.pem \(--tls-cert of the service\) cannot be used: no such file/);
});

test('fleet: not joined; joined and connected, unreachable, revoked, or no server; a damaged membership', () => {
  const file = '/h/fleet/membership.json';
  const membership = { hub: 'tls://hub:4222', machineId: 'm_1', name: 'laptop' };
  assert.deepEqual(fleetCheck({ file, membership: 'absent', connection: null }), { id: 'fleet', status: 'ok', summary: 'not joined to a fleet' });
  assert.deepEqual(fleetCheck({ file, membership, connection: 'connected' }), { id: 'fleet', status: 'ok', summary: "machine 'laptop' (m_1) of the hub at tls://hub:4222: connected" });
  assert.deepEqual(fleetCheck({ file, membership, connection: null }), { id: 'fleet', status: 'ok', summary: "machine 'laptop' (m_1) of the hub at tls://hub:4222; svc serve connects to it when it runs" });
  const away = fleetCheck({ file, membership, connection: 'reconnecting' });
  assert.equal(away.status, 'warn');
  assert.match(away.summary, /cannot reach the hub \(reconnecting\)/);
  assert.match(away.fix!, /svc dashboard serve --fleet. runs there and that tls:\/\/hub:4222 is reachable/);
  const revoked = fleetCheck({ file, membership, connection: 'revoked' });
  assert.equal(revoked.status, 'fail');
  assert.equal(revoked.fix, 'remove /h/fleet and join again with a new invite (svc fleet join <url> --code <code>)');
  const damaged = fleetCheck({ file, membership: 'damaged', connection: null });
  assert.equal(damaged.status, 'warn');
  assert.match(damaged.summary, /\/h\/fleet\/membership\.json \(or the machine's key beside it\) cannot be read/);
});

test('push: not set up is ok; keys with the device count; a broken key file is a warning', () => {
  assert.deepEqual(pushCheck({ keys: 'absent', file: '/h/push-vapid.json', subscriptions: 0 }), { id: 'push', status: 'ok', summary: 'push not set up (the web UI sets it up when you allow notifications)' });
  assert.equal(pushCheck({ keys: 'present', file: '/p', subscriptions: 2 }).summary, 'VAPID keys present; 2 subscribed devices');
  assert.match(pushCheck({ keys: 'present', file: '/p', subscriptions: null }).summary, /subscriptions unknown/);
  const broken = pushCheck({ keys: 'invalid', file: '/p', subscriptions: 1 });
  assert.equal(broken.status, 'warn');
  assert.match(broken.fix!, /remove \/p/);
});

test('report: ok unless a check fails (warnings allowed); diagnose keeps the reading order', () => {
  assert.equal(report([{ id: 'a', status: 'warn', summary: '' }]).ok, true);
  assert.equal(report([{ id: 'a', status: 'ok', summary: '' }, { id: 'b', status: 'fail', summary: '' }]).ok, false);
  const facts: Facts = {
    server: { url: 'http://x', reachable: false, error: 'refused' },
    service: { installed: null, home: '/h' },
    providers: [provider()],
    providerContext: ctx,
    disk: disk({}),
    tls: { configured: false, serverHttps: false },
    fleet: { file: '/h/fleet/membership.json', membership: 'absent', connection: null },
    push: { keys: 'absent', file: '/h/push-vapid.json', subscriptions: 0 },
  };
  const result = diagnose(facts, new Date());
  assert.deepEqual(result.checks.map((c) => c.id), ['server', 'service', 'provider.claude', 'disk', 'tls', 'fleet', 'push']);
  assert.equal(result.ok, true);
});

test('shebang: the program of #!/usr/bin/env lines and of absolute ones', () => {
  assert.deepEqual(parseShebang('#!/usr/bin/env node\nconsole.log(1)'), { program: 'node', viaEnv: true });
  assert.deepEqual(parseShebang('#!/usr/bin/env -S node --no-warnings\n'), { program: 'node', viaEnv: true });
  assert.deepEqual(parseShebang('#!/usr/bin/env NODE_OPTIONS=x node\n'), { program: 'node', viaEnv: true });
  assert.deepEqual(parseShebang('#! /usr/local/bin/node\r\n'), { program: '/usr/local/bin/node', viaEnv: false });
  assert.equal(parseShebang('\x7fELF...'), null);
  assert.equal(parseShebang('#!/usr/bin/env\n'), null);
});
