// web-ai through the core server, as the agent and a person use it: the core's /api/browser/web-ai/*
// routes forward to the browser server it starts, resolve attachments and save code inside the working
// directory (and refuse anything outside it), and the same runs as `/web-ai …` and `svc web-ai …`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, sendJson, startServer, type TestServer } from '../../../support/server.ts';
import { postNdjson } from '../../../support/ndjson.ts';
import { freePort } from '../../../support/ports.ts';
import { CODE_BLOCKS, FAKE_SITE_STABLE_MS, profileFileFor, startChatSite, type ChatSite } from '../../../fixtures/web-ai/chat-sites.ts';

const BIN = join(import.meta.dirname, '../../../../bin/svc.js');

let server: TestServer;
let chatgpt: ChatSite;
let claude: ChatSite;
let base: string;
let work: string;
let outside: string;

const post = (path: string, body: unknown) => sendJson(`${server.url}/api/browser/web-ai/${path}`, 'POST', body);

function svc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, SVC_URL: server.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('web-ai through the core server', { timeout: 300_000 }, () => {
  before(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-webai-core-')));
    work = join(base, 'work');
    outside = join(base, 'outside');
    mkdirSync(work);
    mkdirSync(outside);
    chatgpt = await startChatSite('chatgpt');
    claude = await startChatSite('claude');
    server = await startServer({ browserPort: await freePort(), cwd: work });
    writeFileSync(join(server.home, 'web-ai-profiles.json'), profileFileFor({ chatgpt, claude }, { chatgpt: { stableMs: FAKE_SITE_STABLE_MS }, claude: { stableMs: FAKE_SITE_STABLE_MS } }));
  });
  after(async () => {
    await server?.close();
    await chatgpt?.close();
    await claude?.close();
    rmSync(base, { recursive: true, force: true });
  });

  test('code: the blocks, saved where asked inside the working directory', async () => {
    const r = await post('code', { vendor: 'chatgpt', prompt: 'A greeting program', saveTo: 'out' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.complete, true);
    assert.deepEqual(r.body.blocks, CODE_BLOCKS);
    assert.deepEqual(r.body.saved, [
      { path: 'out/hello.py', bytes: Buffer.byteLength(CODE_BLOCKS[0]!.code) + 1, language: 'python' },
      { path: 'out/src/util.js', bytes: Buffer.byteLength(CODE_BLOCKS[1]!.code) + 1, language: 'javascript' },
      { path: 'out/block-3.sh', bytes: Buffer.byteLength(CODE_BLOCKS[2]!.code) + 1, language: 'bash' },
    ]);
    for (const [i, f] of ['out/hello.py', 'out/src/util.js', 'out/block-3.sh'].entries()) {
      assert.equal(readFileSync(join(work, f), 'utf8'), `${CODE_BLOCKS[i]!.code}\n`);
    }
  });

  test('existing files are not overwritten unless asked; the answer is kept to save again', async () => {
    writeFileSync(join(work, 'out/hello.py'), 'mine\n');
    const r = await post('code', { vendor: 'chatgpt', prompt: 'Again please', saveTo: 'out' });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.error, 'FILE_EXISTS');
    assert.deepEqual(r.body.files, ['out/hello.py', 'out/src/util.js', 'out/block-3.sh']);
    assert.match(r.body.message, /nothing was written.*overwrite/s);
    assert.match(r.body.sessionId, /^wa_/);
    assert.equal(readFileSync(join(work, 'out/hello.py'), 'utf8'), 'mine\n');
    const saved = await post('code-extract', { sessionId: r.body.sessionId, saveTo: 'out', overwrite: true });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.saved.length, 3);
    assert.equal(readFileSync(join(work, 'out/hello.py'), 'utf8'), `${CODE_BLOCKS[0]!.code}\n`);
  });

  test('outside the working directory is refused before anything is asked, by path or through a link', async () => {
    const asked = chatgpt.received.length;
    for (const saveTo of ['../outside', outside, '/tmp']) {
      const r = await post('code', { vendor: 'chatgpt', prompt: 'x', saveTo });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error, 'OUTSIDE_WORKING_DIR');
    }
    symlinkSync(outside, join(work, 'escape'));
    const r = await post('code', { vendor: 'chatgpt', prompt: 'x', saveTo: 'escape/sub' });
    assert.equal(r.body.error, 'OUTSIDE_WORKING_DIR');
    assert.match(r.body.message, /outside the working directory/);
    assert.equal(chatgpt.received.length, asked, 'nothing was sent');
  });

  test('attachments are named relative to the working directory, and only from inside it', async () => {
    writeFileSync(join(work, 'notes.txt'), 'notes');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    const r = await post('query', { vendor: 'chatgpt', prompt: 'Read my notes', files: ['notes.txt'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(chatgpt.received.at(-1), { prompt: 'Read my notes', files: ['notes.txt'] });
    for (const f of ['../outside/secret.txt', join(outside, 'secret.txt')]) {
      const refused = await post('send', { vendor: 'chatgpt', prompt: 'x', files: [f] });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, 'OUTSIDE_WORKING_DIR');
    }
    assert.equal((await post('send', { vendor: 'chatgpt', prompt: 'x', files: ['nope.txt'] })).body.error, 'WEB_AI_FILE_NOT_FOUND');
  });

  test('a login wall keeps its 409 NEEDS_LOGIN through the core', async () => {
    claude.mode = 'login';
    try {
      const r = await post('send', { vendor: 'claude', prompt: 'hi' });
      assert.equal(r.status, 409);
      assert.equal(r.body.error, 'NEEDS_LOGIN');
      assert.match(r.body.message, /log in to Claude in its tab yourself/);
      const status = await getJson(`${server.url}/api/browser/web-ai/status?vendor=claude`);
      assert.equal(status.status, 200);
      assert.equal(status.body.state, 'needs_login');
    } finally {
      claude.mode = 'chat';
    }
  });

  test('/web-ai as a slash command, and the skill the agent is told about', async () => {
    const lines = await (await postNdjson(`${server.url}/api/command`, { text: '/web-ai code-extract --vendor chatgpt' })).done;
    assert.equal(lines.at(-1).status, 'ok', JSON.stringify(lines));
    const text = lines.filter((l) => l.type === 'text').map((l) => l.content).join('');
    assert.match(text, /^hello\.py:\n```python\ndef greet\(name\):/);
    const status = await (await postNdjson(`${server.url}/api/command`, { text: '/web-ai status chatgpt' })).done;
    assert.match(status.find((l) => l.type === 'text').content, /^ChatGPT: ready — http:\/\/127\.0\.0\.1:\d+\/ \(tab t\d+\)\n  ✗ captcha \(tried /);
    const bad = await sendJson(`${server.url}/api/command`, 'POST', { text: '/web-ai query' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'INVALID_COMMAND_ARGS');
    assert.match(bad.body.message, /needs a vendor and a prompt/);
    const skills = await getJson(`${server.url}/api/skills`);
    assert.ok(skills.body.skills.some((s: { id: string; command: string }) => s.id === 'web-ai' && s.command === '/web-ai'), JSON.stringify(skills.body));
  });

  test('svc web-ai: text, --json, and errors', async () => {
    const sessions = await svc(['web-ai', 'sessions', '--json']);
    assert.equal(sessions.code, 0, sessions.stderr);
    const list = JSON.parse(sessions.stdout) as { sessions: { vendor: string; prompt: string }[] };
    assert.ok(list.sessions.some((s) => s.vendor === 'chatgpt' && s.prompt === 'Read my notes'), sessions.stdout);
    const saved = await svc(['web-ai', 'code-extract', '--vendor', 'chatgpt', '--save-to', 'cli-out']);
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /\(saved to cli-out\/hello\.py\)/);
    assert.equal(readFileSync(join(work, 'cli-out/src/util.js'), 'utf8'), `${CODE_BLOCKS[1]!.code}\n`);
    const refused = await svc(['web-ai', '--url', server.url, 'code-extract', '--save-to', '../outside', '--json']);
    assert.equal(refused.code, 1);
    assert.equal(JSON.parse(refused.stdout).error, 'OUTSIDE_WORKING_DIR');
    assert.match(refused.stderr, /outside the working directory.*\(OUTSIDE_WORKING_DIR\)/);
    const help = await svc(['web-ai', 'help']);
    assert.match(help.stdout, /svc web-ai query <vendor> <prompt…>/);
  });
});
