// The provider registry (static data, checked against the adapters and the pinned CLI versions) and
// the pure parts of CLI detection: executable resolution and version parsing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROVIDERS, PROVIDER_IDS, providerInfo, type ProviderId } from '../../../src/agent/providers/registry.ts';
import { agentSettings } from '../../../src/agent/settings.ts';
import { isExecutableFile, parseVersion, resolveExecutable } from '../../../src/agent/detect.ts';
import { executableCandidates } from '../../../src/core/executable.ts';
import { claudeAdapter } from '../../../src/agent/providers/claude/adapter.ts';
import { codexAdapter } from '../../../src/agent/providers/codex/adapter.ts';
import { copilotAdapter } from '../../../src/agent/providers/copilot/adapter.ts';
import { customAdapter } from '../../../src/agent/providers/custom/adapter.ts';
import { geminiAdapter } from '../../../src/agent/providers/gemini/adapter.ts';
import { opencodeAdapter } from '../../../src/agent/providers/opencode/adapter.ts';
import type { ProviderAdapter } from '../../../src/agent/providers/types.ts';

const ADAPTERS: ProviderAdapter<any>[] = [claudeAdapter, codexAdapter, geminiAdapter, opencodeAdapter, copilotAdapter, customAdapter];

describe('registry', () => {
  test('one entry per provider id, in the settings order', () => {
    assert.deepEqual(agentSettings.schema.shape.provider.options, [...PROVIDER_IDS]);
    assert.deepEqual(agentSettings.schema.shape.fallback.element.options, [...PROVIDER_IDS]);
    assert.deepEqual(PROVIDERS.map((p) => p.id), [...PROVIDER_IDS]);
    for (const id of PROVIDER_IDS) assert.equal(providerInfo(id).id, id);
  });

  test('executables and npm packages are the ones of shared/protocols/README.md', () => {
    const expected: Record<string, [string, string]> = {
      claude: ['claude', '@anthropic-ai/claude-code'],
      codex: ['codex', '@openai/codex'],
      gemini: ['gemini', '@google/gemini-cli'],
      opencode: ['opencode', 'opencode-ai'],
      copilot: ['copilot', '@github/copilot'],
    };
    for (const [id, [command, npm]] of Object.entries(expected)) {
      const info = providerInfo(id as never);
      assert.equal(info.command, command, id);
      assert.equal(info.install?.npm, npm, id);
      assert.equal(info.install?.command, `npm install -g ${npm}`, id);
      assert.match(info.install?.docs ?? '', /^https:\/\//, id);
    }
  });

  test('custom has no install and no executable of its own', () => {
    const custom = providerInfo('custom');
    assert.equal(custom.install, null);
    assert.equal(custom.command, '');
  });

  test('every model list starts with the CLI default and has no duplicates', () => {
    for (const p of PROVIDERS) {
      assert.ok(p.models.length >= 1, p.id);
      assert.equal(p.models[0]!.id, '', `${p.id}: '' (the CLI's default) comes first`);
      const ids = p.models.map((m) => m.id);
      assert.equal(new Set(ids).size, ids.length, `${p.id}: duplicate model`);
      for (const m of p.models) assert.ok(m.label.trim(), `${p.id}: model ${m.id} has a label`);
    }
  });

  test('efforts per provider', () => {
    assert.deepEqual(providerInfo('claude').efforts, ['low', 'medium', 'high', 'xhigh', 'max']);
    assert.deepEqual(providerInfo('codex').efforts, ['minimal', 'low', 'medium', 'high', 'xhigh']);
    assert.deepEqual(providerInfo('gemini').efforts, []);
    assert.deepEqual(providerInfo('opencode').efforts, ['minimal', 'low', 'medium', 'high', 'xhigh', 'max']);
    assert.deepEqual(providerInfo('copilot').efforts, ['low', 'medium', 'high']);
    assert.deepEqual(providerInfo('custom').efforts, []);
  });

  test('liveSteer and display names agree with the adapters', () => {
    for (const adapter of ADAPTERS) {
      const info = providerInfo(adapter.id as ProviderId);
      assert.equal(info.supports.liveSteer, adapter.steerMode === 'live', adapter.id);
      assert.equal(info.displayName, adapter.displayName, adapter.id);
    }
    assert.equal(providerInfo('custom').supports.resume, false);
    assert.equal(providerInfo('gemini').supports.thinking, false);
  });

  test('the shared data cannot be changed by a caller', () => {
    assert.throws(() => (PROVIDERS as any[]).push({}));
    assert.throws(() => (providerInfo('claude').models as any[]).push({ id: 'x', label: 'x' }));
    assert.throws(() => {
      (providerInfo('codex').supports as any).resume = false;
    });
  });
});

describe('executableCandidates (pure)', () => {
  const posix = { platform: 'linux' as const, cwd: '/srv/app', home: '/home/u' };

  test('a bare name is looked up in each absolute PATH entry, in order, without duplicates', () => {
    assert.deepEqual(executableCandidates('claude', { ...posix, pathEnv: '/usr/local/bin:/usr/bin:/usr/local/bin' }), [
      '/usr/local/bin/claude',
      '/usr/bin/claude',
    ]);
  });

  test('empty and relative PATH entries are skipped (they would mean the current directory)', () => {
    assert.deepEqual(executableCandidates('codex', { ...posix, pathEnv: ':./bin:bin:/opt/x/bin::' }), ['/opt/x/bin/codex']);
    assert.deepEqual(executableCandidates('codex', { ...posix, pathEnv: undefined }), []);
  });

  test('a path is used as is (relative to cwd), without PATH', () => {
    assert.deepEqual(executableCandidates('/opt/claude/bin/claude', { ...posix, pathEnv: '/usr/bin' }), ['/opt/claude/bin/claude']);
    assert.deepEqual(executableCandidates('./tools/gemini', { ...posix, pathEnv: '/usr/bin' }), ['/srv/app/tools/gemini']);
    assert.deepEqual(executableCandidates('~/bin/opencode', { ...posix, pathEnv: '/usr/bin' }), ['/home/u/bin/opencode']);
  });

  test('blank commands have no candidates; surrounding spaces are ignored', () => {
    assert.deepEqual(executableCandidates('', { ...posix, pathEnv: '/usr/bin' }), []);
    assert.deepEqual(executableCandidates('   ', { ...posix, pathEnv: '/usr/bin' }), []);
    assert.deepEqual(executableCandidates(' claude ', { ...posix, pathEnv: '/usr/bin' }), ['/usr/bin/claude']);
  });

  test('windows: ; separated PATH, PATHEXT extensions, backslash paths', () => {
    const win = { platform: 'win32' as const, cwd: 'C:\\work', home: 'C:\\Users\\u', pathExt: '.EXE;.CMD' };
    assert.deepEqual(executableCandidates('codex', { ...win, pathEnv: 'C:\\npm;"C:\\Program Files\\x";rel' }), [
      'C:\\npm\\codex',
      'C:\\npm\\codex.EXE',
      'C:\\npm\\codex.CMD',
      'C:\\Program Files\\x\\codex',
      'C:\\Program Files\\x\\codex.EXE',
      'C:\\Program Files\\x\\codex.CMD',
    ]);
    assert.deepEqual(executableCandidates('tools\\x.cmd', { ...win, pathEnv: '' }), ['C:\\work\\tools\\x.cmd']);
  });
});

describe('resolveExecutable', () => {
  test('returns the first candidate the check accepts, and checks nothing else', async () => {
    const checked: string[] = [];
    const found = await resolveExecutable('gemini', {
      pathEnv: '/a:/b:/c',
      platform: 'linux',
      isExecutable: async (p) => {
        checked.push(p);
        return p.startsWith('/b/');
      },
    });
    assert.equal(found, '/b/gemini');
    assert.deepEqual(checked, ['/a/gemini', '/b/gemini']);
  });

  test('null when nothing matches', async () => {
    assert.equal(await resolveExecutable('nope', { pathEnv: '/a', platform: 'linux', isExecutable: async () => false }), null);
  });

  describe('on the real file system', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'svc-resolve-'));
      for (const d of ['a', 'b', 'c']) mkdirSync(join(dir, d));
      writeFileSync(join(dir, 'a', 'tool'), '#!/bin/sh\n', { mode: 0o644 }); // not executable
      mkdirSync(join(dir, 'b', 'tool')); // a directory, executable bit set
      writeFileSync(join(dir, 'c', 'tool'), '#!/bin/sh\n');
      chmodSync(join(dir, 'c', 'tool'), 0o755);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    test('skips non-executable files and directories', async () => {
      const pathEnv = ['a', 'b', 'c'].map((d) => join(dir, d)).join(':');
      assert.equal(await resolveExecutable('tool', { pathEnv }), join(dir, 'c', 'tool'));
      assert.equal(await isExecutableFile(join(dir, 'a', 'tool')), false);
      assert.equal(await isExecutableFile(join(dir, 'b', 'tool')), false);
      assert.equal(await resolveExecutable('tool', { pathEnv: join(dir, 'a') }), null);
    });

    test('an explicit path is checked as well', async () => {
      assert.equal(await resolveExecutable(join(dir, 'c', 'tool'), { pathEnv: '' }), join(dir, 'c', 'tool'));
      assert.equal(await resolveExecutable(join(dir, 'a', 'tool'), { pathEnv: join(dir, 'c') }), null);
    });
  });
});

describe('parseVersion', () => {
  test('what the pinned CLIs print for --version', () => {
    assert.equal(parseVersion('2.1.197 (Claude Code)\n'), '2.1.197');
    assert.equal(parseVersion('codex-cli 0.169.0\n'), '0.169.0');
    assert.equal(parseVersion('0.61.0\n'), '0.61.0');
    assert.equal(parseVersion('1.18.33\n'), '1.18.33');
    assert.equal(parseVersion("GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n"), '1.0.102');
  });

  test('v prefix, pre-release and build parts, colours; the first token wins', () => {
    assert.equal(parseVersion('tool v3.4.5'), '3.4.5');
    assert.equal(parseVersion('x 2.0.0-beta.1+abc done.'), '2.0.0-beta.1+abc');
    assert.equal(parseVersion('\u001b[1mmytool\u001b[0m 10.2\n'), '10.2');
    assert.equal(parseVersion('app 1.2.3 (node 20.1.0)'), '1.2.3');
  });

  test('no version-looking token', () => {
    assert.equal(parseVersion(''), null);
    assert.equal(parseVersion('usage: tool [options]'), null);
    assert.equal(parseVersion('release 7'), null);
    assert.equal(parseVersion('x86_64 build'), null);
  });
});
