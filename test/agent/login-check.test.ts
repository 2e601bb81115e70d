// When svc knows a provider CLI is not logged in (so a run is refused at once with the login command instead of
// starting a CLI that cannot answer: codex without a login and without a network waits for ever), and when it
// cannot know: codex's configuration may send it to another endpoint or keep its login in the keyring, and the
// other CLIs keep logins where svc cannot look.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliDetector } from '../../src/agent/detect.ts';
import { missingLogin } from '../../src/agent/readiness.ts';
import { codexConfigFiles, codexLoginElsewhere } from '../../src/agent/providers/codex/login.ts';
import { loginCheckOf, providerInfo, PROVIDER_IDS } from '../../src/agent/providers/registry.ts';

test("codex: the settings that take its login out of svc's sight, and those that do not", () => {
  for (const config of [
    'model_provider = "fake"',
    '[profiles.local]\nmodel_provider = "ollama"',
    'openai_base_url = "http://127.0.0.1:8080/v1"',
    "cli_auth_credentials_store = 'keyring'",
    'cli_auth_credentials_store = "auto"',
  ]) {
    assert.equal(codexLoginElsewhere(config), config.split('\n').at(-1)!.trim(), config);
  }
  for (const config of [
    '',
    'model = "gpt-5.5"\napproval_policy = "never"',
    'model_provider = "openai"',
    'cli_auth_credentials_store = "file"',
    '# model_provider = "fake"',
    '[model_providers.fake]\nname = "Fake"\nbase_url = "http://127.0.0.1:1/v1"', // defined, not chosen
    '[projects."/work"]\ntrust_level = "trusted"',
  ]) {
    assert.equal(codexLoginElsewhere(config), undefined, config);
  }
});

test("codex's configuration files: its home's (CODEX_HOME first), the system's, and a project's up from the working directory", () => {
  const files = codexConfigFiles({ home: '/home/ann', env: {}, cwd: '/work/app' });
  assert.deepEqual(files, [
    '/home/ann/.codex/config.toml', '/home/ann/.codex/managed_config.toml', '/etc/codex/config.toml', '/etc/codex/managed_config.toml',
    '/work/app/.codex/config.toml', '/work/.codex/config.toml', '/.codex/config.toml',
  ]);
  assert.equal(codexConfigFiles({ home: '/home/ann', env: { CODEX_HOME: '/opt/codex' }, cwd: '/' })[0], '/opt/codex/config.toml');
  assert.equal(codexConfigFiles({ home: '/home/ann', env: { CODEX_HOME: 'relative' }, cwd: '/' })[0], '/home/ann/.codex/config.toml', 'a relative CODEX_HOME is not trusted');
});

test('only a provider with a login check can be known not to be logged in, and only when no login was found', () => {
  const codex = providerInfo('codex');
  assert.equal(
    missingLogin(codex, { state: 'missing' }, true),
    'svc found no OPENAI_API_KEY or CODEX_API_KEY in the environment of runs and no $CODEX_HOME/auth.json or ~/.codex/auth.json',
  );
  assert.equal(missingLogin(codex, { state: 'missing' }, false), undefined);
  assert.equal(missingLogin(codex, { state: 'unknown' }, true), undefined);
  assert.equal(missingLogin(codex, { state: 'found', source: 'CODEX_API_KEY' }, true), undefined);
  // Claude Code keeps its login in the macOS keychain, Gemini CLI may use Vertex AI: svc cannot know, and they say so themselves at once
  assert.deepEqual(PROVIDER_IDS.filter((id) => loginCheckOf(id)), ['codex']);
});

test('the detector: codex with no login anywhere is known not to be logged in; a key, a login file or a configuration elsewhere makes it a runnable or an unknown', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-login-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  mkdirSync(join(home, '.codex'), { recursive: true });
  mkdirSync(work);
  // installed (never run: the quick check reads files only)
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'codex'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  let env: Record<string, string> = { HOME: home };
  const detector = new CliDetector({ env: () => env, pathEnv: () => join(dir, 'bin'), workingDir: () => work });
  t.after(() => detector.close());
  const codexState = async () => (await detector.quickCheck()).codex.readiness.state;

  assert.match((await detector.missingLogin('codex')) ?? '', /^svc found no OPENAI_API_KEY or CODEX_API_KEY/);
  assert.equal(await codexState(), 'needs_login');
  // the others are never refused by svc, logged in or not, and their runs do not wait for a check
  for (const id of PROVIDER_IDS.filter((p) => p !== 'codex')) assert.equal(detector.missingLogin(id), undefined, id);

  // a configuration that sends codex to another provider: svc cannot tell (and says so)
  writeFileSync(join(home, '.codex', 'config.toml'), 'model_provider = "local"\n');
  assert.equal(await detector.missingLogin('codex'), undefined);
  assert.equal(await codexState(), 'login_unknown');
  writeFileSync(join(home, '.codex', 'config.toml'), 'model = "gpt-5.5"\n');
  assert.ok(await detector.missingLogin('codex'));
  // …also a project's, in the working directory of runs
  mkdirSync(join(work, '.codex'));
  writeFileSync(join(work, '.codex', 'config.toml'), 'openai_base_url = "http://gateway.internal/v1"\n');
  assert.equal(await detector.missingLogin('codex'), undefined);
  rmSync(join(work, '.codex'), { recursive: true });
  assert.ok(await detector.missingLogin('codex'));

  // a key in the environment of runs (agent.env), or a login file
  env = { HOME: home, CODEX_API_KEY: 'k' };
  assert.equal(await detector.missingLogin('codex'), undefined);
  env = { HOME: home, OPENAI_API_KEY: '' };
  assert.ok(await detector.missingLogin('codex'), 'an empty key is no key');
  writeFileSync(join(home, '.codex', 'auth.json'), '{"OPENAI_API_KEY":"k"}');
  assert.equal(await detector.missingLogin('codex'), undefined);
  assert.equal(await codexState(), 'ready');
});
