// The provider-CLI locator: invocation building and answer extraction (pure), and the locator run end to
// end against a stand-in CLI that really reads the image the way each CLI takes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../../../src/core/errors.ts';
import { encodePng } from '../../../../src/modules/automation/vision-click/image.ts';
import { buildCliInvocation, CliLocator, extractCliAnswer } from '../../../../src/modules/automation/vision-click/locators/cli.ts';
import type { CliProvider } from '../../../../src/modules/automation/vision-click/settings.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/${name}`, import.meta.url));
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

test('codex: exec --json in its read-only sandbox, image by --image, prompt after --', () => {
  const inv = buildCliInvocation({ provider: 'codex', imagePath: '/tmp/x/screenshot.png', png, prompt: 'find it', model: 'gpt-5' });
  assert.equal(inv.command, 'codex');
  assert.deepEqual(inv.args, ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '--image', '/tmp/x/screenshot.png', '--model=gpt-5', '--', 'find it']);
  assert.equal(inv.cwd, '/tmp/x');
  assert.equal(inv.stdin, '');
  assert.ok(!inv.args.some((a) => /dangerously|yolo|bypass/.test(a)), 'no autonomy flags');
  assert.deepEqual(buildCliInvocation({ provider: 'codex', imagePath: '/a/b.png', png, prompt: '-p', executable: '/opt/codex' }).args.slice(-2), ['--', '-p']);
  assert.equal(buildCliInvocation({ provider: 'codex', imagePath: '/a/b.png', png, prompt: 'p', executable: '/opt/codex' }).command, '/opt/codex');
});

test('claude: stream-json in with an inline base64 image block, stream-json out, one turn', () => {
  const inv = buildCliInvocation({ provider: 'claude', imagePath: '/tmp/x/screenshot.png', png, prompt: 'find it', model: 'sonnet' });
  assert.equal(inv.command, 'claude');
  assert.deepEqual(inv.args, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--max-turns', '1', '--model=sonnet']);
  const msg = JSON.parse(inv.stdin) as { type: string; message: { role: string; content: { type: string; source?: { type: string; media_type: string; data: string }; text?: string }[] } };
  assert.equal(msg.type, 'user');
  assert.equal(msg.message.role, 'user');
  assert.deepEqual(msg.message.content[0], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } });
  assert.deepEqual(msg.message.content[1], { type: 'text', text: 'find it' });
  assert.ok(inv.stdin.endsWith('\n'));
  assert.ok(!inv.args.some((a) => /dangerously|skip-permissions/.test(a)));
});

test('gemini: @<file> in the prompt, run in the image directory (its workspace), JSON out', () => {
  const inv = buildCliInvocation({ provider: 'gemini', imagePath: '/tmp/x/screenshot.png', png, prompt: 'find it' });
  assert.deepEqual(inv.args, ['--prompt=@screenshot.png find it', '--output-format', 'json']);
  assert.equal(inv.cwd, '/tmp/x');
  assert.ok(!inv.args.includes('--yolo'));
  assert.deepEqual(buildCliInvocation({ provider: 'gemini', imagePath: '/t/s.png', png, prompt: 'p', model: 'gemini-2.5-pro' }).args.at(-1), '--model=gemini-2.5-pro');
});

test('answers from recorded real CLI output', () => {
  const text = 'Hello from the fake model. This is a plain text answer.';
  assert.equal(extractCliAnswer('codex', readFileSync(fixture('protocols/codex-text.jsonl'), 'utf8')), text);
  assert.equal(extractCliAnswer('claude', readFileSync(fixture('protocols/claude-text.jsonl'), 'utf8')), text);
  assert.match(extractCliAnswer('gemini', readFileSync(fixture('vision-click/gemini-tool-json.json'), 'utf8')), /^The tool finished/);
  assert.equal(extractCliAnswer('gemini', readFileSync(fixture('protocols/gemini-text.jsonl'), 'utf8')), text);
  const failed = (p: CliProvider, file: string, re: RegExp) =>
    assert.throws(() => extractCliAnswer(p, readFileSync(fixture(file), 'utf8')), (e: unknown) => e instanceof AppError && e.code === 'VISION_CLI_FAILED' && re.test(e.message), file);
  failed('codex', 'protocols/codex-error.jsonl', /high demand/);
  failed('claude', 'protocols/claude-error.jsonl', /API Error: 500/);
  failed('gemini', 'protocols/gemini-error.jsonl', /Fake internal error/);
  // Plain text (no JSON stream) passes through.
  assert.equal(extractCliAnswer('codex', '{"found":false}'), '{"found":false}');
});

function bluePng(): Buffer {
  const width = 120;
  const height = 80;
  const data = Buffer.alloc(width * height * 4, 255);
  for (let y = 30; y < 40; y++) for (let x = 70; x < 90; x++) data.set([0, 0, 255, 255], (y * width + x) * 4);
  return encodePng({ width, height, data });
}

test('CliLocator runs each CLI with the image and parses its answer (stand-in CLI)', async () => {
  const exe = fixture('vision-click/fake-vision-cli.mjs');
  chmodSync(exe, 0o755);
  const dir = mkdtempSync(join(tmpdir(), 'svc-vision-cli-'));
  try {
    for (const provider of ['codex', 'claude', 'gemini'] as const) {
      const argsFile = join(dir, `${provider}.json`);
      const loc = new CliLocator(() => ({ provider, model: 'm1', executable: exe, timeoutMs: 20_000, env: { ...process.env, FAKE_CLI: provider, FAKE_ARGS_FILE: argsFile } }));
      const a = await loc.locate({ png: bluePng(), width: 120, height: 80, description: 'the blue square' });
      assert.equal(a.found, true, `${provider}: ${JSON.stringify(a)}`);
      if (a.found) {
        assert.deepEqual(a.box, { x: 70, y: 30, width: 20, height: 10 }, provider);
        assert.equal(a.confidence, 0.88);
      }
      const seen = JSON.parse(readFileSync(argsFile, 'utf8')) as { args: string[]; cwd: string; noRelaunch: string | null };
      assert.ok(seen.args.includes('--model=m1'), provider);
      // gemini runs as one process (GEMINI_PROCESS_ENV); the others get no such variable
      assert.equal(seen.noRelaunch, provider === 'gemini' ? 'true' : null, provider);
      assert.match(seen.cwd, /svc-vision-/, 'runs in the private temp dir');
    }
    const env = (mode: string) => ({ ...process.env, FAKE_CLI: 'codex', FAKE_MODE: mode });
    const run = (mode: string, timeoutMs = 20_000) =>
      new CliLocator(() => ({ provider: 'codex', model: '', executable: exe, timeoutMs, env: env(mode) })).locate({ png: bluePng(), width: 120, height: 80, description: 'x' });
    const rejects = async (p: Promise<unknown>, code: string, re?: RegExp) => {
      await assert.rejects(p, (e: unknown) => e instanceof AppError && e.code === code && (!re || re.test(e.message)));
    };
    await rejects(run('fail'), 'VISION_CLI_FAILED', /quota exceeded/);
    await rejects(run('prose'), 'VISION_BAD_ANSWER');
    const t0 = Date.now();
    await rejects(run('hang', 800), 'VISION_MODEL_TIMEOUT');
    assert.ok(Date.now() - t0 < 10_000);
    await rejects(
      new CliLocator(() => ({ provider: 'gemini', model: '', executable: join(dir, 'no-such-cli'), timeoutMs: 5000, env: process.env })).locate({ png: bluePng(), width: 1, height: 1, description: 'x' }),
      'VISION_CLI_MISSING',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
