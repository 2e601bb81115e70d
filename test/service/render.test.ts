// The files `svc service install` writes, rendered from a fixed spec: compared with golden copies (a
// path with a space, a `%`, a `$`, quotes and `&` in it), read back by the parsers, and checked by the
// tools that read them for real (systemd-analyze, python's plistlib and XML parser).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseEnvFile, ENV_FILE_HEADER } from '../../src/service/env-file.ts';
import { parseLaunchdPlist, renderLaunchdPlist } from '../../src/service/launchd.ts';
import { buildSpec, servicePath } from '../../src/service/spec.ts';
import { parseSystemdUnit, renderSystemdUnit, splitSystemdWords } from '../../src/service/systemd.ts';
import { decodeTaskXml, encodeTaskXml, parseTaskCommand, renderTaskXml, splitWindowsArgs, windowsArg } from '../../src/service/windows.ts';
import { fixedSpec, fixedWindowsSpec, golden, ROOT, tempDir } from './support.ts';

const dir = tempDir('svc-service-render-');
after(() => rmSync(dir, { recursive: true, force: true }));

test('the spec: serve and dashboard arguments, PATH deduplicated and absolute only, files under the home', () => {
  const spec = fixedSpec();
  assert.equal(spec.name, 'svc');
  assert.deepEqual(spec.args, ['serve', '--port', '3457', '--home', '/home/u/my svc 100%/.svc']);
  assert.equal(spec.path, '/home/u/.local/bin:/usr/local/bin:/usr/bin:/opt/tools 2/bin');
  assert.equal(spec.envFile, '/home/u/my svc 100%/.svc/service.env');
  assert.equal(spec.logDir, '/home/u/my svc 100%/.svc/logs');
  const dashboard = fixedSpec('dashboard');
  assert.equal(dashboard.name, 'svc-dashboard');
  assert.deepEqual(dashboard.args.slice(0, 4), ['dashboard', 'serve', '--port', '24576']);
  assert.equal(servicePath('C:\\a;b;C:\\a;D:\\c', 'win32'), 'C:\\a;D:\\c');
  assert.equal(fixedWindowsSpec().envFile, 'C:\\Users\\u\\svc 100%\\.svc\\service.env');
});

test('the systemd user and system units match their golden copies', () => {
  const user = golden('svc.service', renderSystemdUnit(fixedSpec()));
  assert.equal(user.actual, user.expected);
  const system = golden('svc-system.service', renderSystemdUnit(fixedSpec(), { system: true }));
  assert.equal(system.actual, system.expected);
  assert.match(system.actual, /^User=u$/m);
  assert.match(system.actual, /^WantedBy=multi-user\.target$/m);
  assert.doesNotMatch(user.actual, /^User=/m);
});

test('the unit reads back as written: ExecStart words, Environment=, EnvironmentFile=', () => {
  const spec = fixedSpec();
  const unit = parseSystemdUnit(renderSystemdUnit(spec));
  assert.deepEqual(unit.execStart, [spec.node, spec.script, ...spec.args]);
  assert.deepEqual(unit.environment, { PATH: spec.path, HOME: '/home/u', SVC_SERVICE: 'systemd' });
  assert.deepEqual(unit.environmentFiles, [spec.envFile]);
  assert.equal(unit.workingDirectory, '/home/u');
  assert.deepEqual(splitSystemdWords(`a "b c" 'd e' f\\ g "h\\"i" ""`), ['a', 'b c', 'd e', 'f g', 'h"i', '']);
});

test('systemd-analyze verify finds nothing to say about the user unit (and the system unit)', { skip: !hasSystemdAnalyze() && 'no systemd-analyze' }, () => {
  // ExecStart must name files that exist: the real Node and bin/svc.js, in a home with a space and a %
  const spec = buildSpec({
    kind: 'serve',
    port: 3457,
    home: join(dir, 'home 100%', '.svc'),
    userHome: join(dir, 'home 100%'),
    node: realpathSync(process.execPath),
    script: realpathSync(join(ROOT, 'bin/svc.js')),
    pathEnv: process.env.PATH,
    platform: 'linux',
    user: 'root',
  });
  mkdirSync(spec.home, { recursive: true });
  const runtime = join(dir, 'runtime');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  for (const [system, args] of [[false, ['--user', 'verify']], [true, ['verify']]] as const) {
    const file = join(dir, system ? 'system' : 'user', 'svc.service');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, renderSystemdUnit(spec, { system }));
    const result = spawnSync('systemd-analyze', [...args, file], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: runtime } });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    // a warning about the unit names it (or its file); the manager's own notes about the machine do not
    const about = `${result.stdout}${result.stderr}`.split('\n').filter((l) => l.includes('svc.service') || l.includes(file));
    assert.deepEqual(about, [], `systemd-analyze ${args.join(' ')}:\n${result.stderr}`);
  }
});

test('the launchd plist matches its golden copy, is a plist to plistlib, and holds the fields', () => {
  const spec = fixedSpec();
  const plist = golden('dev.svc.svc.plist', renderLaunchdPlist(spec));
  assert.equal(plist.actual, plist.expected);
  const file = join(dir, 'dev.svc.svc.plist');
  writeFileSync(file, plist.actual);
  const parsed = python(
    'import plistlib,sys,json; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))',
    file,
  ) as Record<string, unknown>;
  assert.equal(parsed.Label, 'dev.svc.svc');
  assert.deepEqual(parsed.ProgramArguments, [spec.node, spec.script, ...spec.args]);
  assert.equal(parsed.RunAtLoad, true);
  assert.equal(parsed.KeepAlive, true);
  assert.equal(parsed.ThrottleInterval, 10);
  assert.equal(parsed.WorkingDirectory, '/home/u');
  assert.deepEqual(parsed.EnvironmentVariables, { PATH: spec.path, HOME: '/home/u', SVC_SERVICE: 'launchd', SVC_ENV_FILE: spec.envFile });
  assert.equal(parsed.StandardOutPath, '/home/u/Library/Logs/svc/svc.out.log');
  assert.equal(parsed.StandardErrorPath, '/home/u/Library/Logs/svc/svc.err.log');
  // and svc's own reader agrees with plistlib
  const own = parseLaunchdPlist(plist.actual);
  assert.deepEqual(own.programArguments, parsed.ProgramArguments);
  assert.deepEqual(own.environment, parsed.EnvironmentVariables);
});

test('the task XML matches its golden copy, is UTF-16 XML to a parser, and holds the fields', () => {
  const spec = fixedWindowsSpec();
  const xml = golden('svc-task.xml', renderTaskXml(spec));
  assert.equal(xml.actual, xml.expected);
  const bytes = encodeTaskXml(xml.actual);
  assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xfe]);
  assert.equal(decodeTaskXml(bytes), xml.actual);
  const file = join(dir, 'svc-task.xml');
  writeFileSync(file, bytes);
  const fields = python(
    `import xml.dom.minidom,sys,json
d = xml.dom.minidom.parse(sys.argv[1])
t = lambda n: d.getElementsByTagName(n)[0].firstChild.nodeValue
print(json.dumps({n: t(n) for n in ["UserId","LogonType","ExecutionTimeLimit","Interval","Count","MultipleInstancesPolicy","DisallowStartIfOnBatteries","StopIfGoingOnBatteries","Hidden","Command","Arguments","WorkingDirectory","URI"]} | {"version": d.documentElement.getAttribute("version"), "triggers": [c.tagName for c in d.getElementsByTagName("Triggers")[0].childNodes if c.nodeType == 1]}))`,
    file,
  ) as Record<string, unknown>;
  assert.deepEqual(fields, {
    version: '1.4',
    triggers: ['LogonTrigger'],
    UserId: 'HOST\\u',
    LogonType: 'S4U',
    ExecutionTimeLimit: 'PT0S',
    Interval: 'PT1M',
    Count: '999',
    MultipleInstancesPolicy: 'IgnoreNew',
    DisallowStartIfOnBatteries: 'false',
    StopIfGoingOnBatteries: 'false',
    Hidden: 'true',
    Command: 'C:\\Program Files\\nodejs\\node.exe',
    Arguments: '"C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules\\svc & co\\bin\\svc.js" serve --port 3457 --home "C:\\Users\\u\\svc 100%\\.svc" --service schtasks',
    WorkingDirectory: 'C:\\Users\\u',
    URI: '\\svc\\svc',
  });
  // Task Scheduler sets no variables: the argument tells svc it runs as the task
  assert.deepEqual(parseTaskCommand(xml.actual), [spec.node, spec.script, ...spec.args, '--service', 'schtasks']);
});

test('Windows arguments: quoted as the C runtime splits them, and split back', () => {
  const cases = ['plain', 'with space', '', 'say "hi"', 'C:\\dir\\', 'C:\\dir with space\\', 'a\\\\"b', '\\\\server\\share'];
  for (const value of cases) assert.deepEqual(splitWindowsArgs(windowsArg(value)), [value], value);
  assert.equal(windowsArg('C:\\dir with space\\'), '"C:\\dir with space\\\\"');
  assert.deepEqual(splitWindowsArgs(cases.map(windowsArg).join(' ')), cases);
});

test('the env file: KEY=VALUE, export, quotes, comments; its header is only comments', () => {
  assert.deepEqual(parseEnvFile('# c\n; c\n\nA=1\nexport B = "two words"\nC=\'x\'\nD=a=b\nnot a line\n 9X=no\nE=\r\n'), { A: '1', B: 'two words', C: 'x', D: 'a=b', E: '' });
  assert.deepEqual(parseEnvFile(ENV_FILE_HEADER), {});
});

function hasSystemdAnalyze(): boolean {
  return spawnSync('systemd-analyze', ['--version']).status === 0;
}

/** Runs a python3 snippet on a file; its JSON output. */
function python(code: string, file: string): unknown {
  const result = spawnSync('python3', ['-c', code, file], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}
