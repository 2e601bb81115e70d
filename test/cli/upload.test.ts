import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgentServer, type AgentTestServer } from '../support/agent.ts';
import { getJson, tempHome } from '../support/server.ts';
import { SVC_BIN } from '../support/cli.ts';

// The built program (npm test builds it first), as a user runs it.
const ROOT = join(import.meta.dirname, '../..');

function svc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('svc upload and svc chat --attach', () => {
  let server: AgentTestServer;
  let dir: string;
  let media: string;
  const png = Buffer.from('89504e470d0a1a0a00ff10', 'hex');
  before(async () => {
    server = await startAgentServer();
    media = join(server.home, 'media');
    dir = tempHome('svc-upload-cli-');
    writeFileSync(join(dir, 'shot.png'), png);
    writeFileSync(join(dir, 'notes.md'), '# notes\n');
    writeFileSync(join(dir, 'empty.txt'), '');
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const userMessages = async () =>
    ((await getJson(`${server.url}/api/messages?limit=200`)).body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user');

  test('svc upload prints the stored path and URL of each file; both give back the bytes', async () => {
    const result = await svc(['upload', '--url', server.url, join(dir, 'shot.png'), join(dir, 'notes.md')]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n').map((l) => l.split('\t'));
    assert.equal(lines.length, 2);
    const [[pngPath, pngUrl], [mdPath, mdUrl]] = lines as [[string, string], [string, string]];
    assert.match(pngPath, /\/media\/\d{8}-\d{6}-[0-9a-z]{6}-shot\.png$/);
    assert.match(mdPath, /-notes\.md$/);
    assert.deepEqual(readFileSync(pngPath), png);
    assert.ok(pngUrl.startsWith(`${server.url}/media/`));
    assert.deepEqual(Buffer.from(await (await fetch(pngUrl)).arrayBuffer()), png);
    assert.equal(await (await fetch(mdUrl)).text(), '# notes\n');
  });

  test('a missing file is one line, exit 1, and nothing is uploaded; a refused upload prints the server\'s message', async () => {
    const before = readdirSync(media).length;
    const missing = await svc(['upload', '--url', server.url, join(dir, 'shot.png'), join(dir, 'nope.png')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^svc: cannot read \S*nope\.png: no such file; check the path\n$/);
    assert.equal(readdirSync(media).length, before, 'the existing file was not sent either');
    const refused = await svc(['upload', '--url', server.url, join(dir, 'empty.txt')]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /upload of .*empty\.txt refused: 400 The upload is empty/);
  });

  test('svc chat --attach uploads the files and sends the message with them', async () => {
    const result = await svc(['chat', '--url', server.url, '-q', '--attach', join(dir, 'shot.png'), '-a', join(dir, 'notes.md'), 'what are these? scenario:text']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'Hello from the fake model. This is a plain text answer.');
    const content = (await userMessages()).at(-1)?.content ?? '';
    const block = /^what are these\? scenario:text\n\nAttached files:\n- (\/\S+-shot\.png) \(image\/png, 11 B\)\n- (\/\S+-notes\.md) \(text\/markdown, 8 B\)$/.exec(content);
    assert.ok(block, content);
    assert.deepEqual(readFileSync(block[1]!), png);
    assert.equal(readFileSync(block[2]!, 'utf8'), '# notes\n');
  });

  test('svc chat --attach with a missing file is one line, exit 1, and sends nothing', async () => {
    const before = (await userMessages()).length;
    const result = await svc(['chat', '--url', server.url, '-a', join(dir, 'gone.png'), 'hello scenario:text']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^svc: cannot read \S*gone\.png: no such file; check the path\n$/);
    assert.equal((await userMessages()).length, before);
  });
});
