// Files the web-ai skill reads and writes: code saved where asked inside the working directory, never
// outside it once links are resolved, never through a link, never over a file without overwrite; and
// attachments only from the working directory or the media directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../../src/core/errors.ts';
import { plannedNames, resolveInputFiles, saveBlocks, saveDirectory } from '../../../../src/modules/automation/web-ai/workspace.ts';

const BLOCKS = [
  { language: 'python', code: 'print("hi")', filename: 'hello.py' },
  { language: 'javascript', code: 'export {}', filename: 'src/util.js' },
  { language: 'bash', code: 'python hello.py' },
];

function dirs(t: { after(fn: () => void): void }) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-webai-ws-')));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const work = join(base, 'work');
  const outside = join(base, 'outside');
  mkdirSync(work);
  mkdirSync(outside);
  return { base, work, outside };
}

async function rejects(p: Promise<unknown>, status: number, code: string, what = ''): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    assert.equal(err.status, status);
    return err;
  }
  assert.fail(`expected ${code}${what ? ` for ${what}` : ''}`);
}

test('names: the answer\'s, else block-<n>.<ext>; repeats numbered', () => {
  assert.deepEqual(plannedNames(BLOCKS), ['hello.py', 'src/util.js', 'block-3.sh']);
  assert.deepEqual(
    plannedNames([
      { language: 'python', code: '', filename: 'a.py' },
      { language: 'python', code: '', filename: 'a.py' },
      { language: 'text', code: '', filename: 'src/.env' },
      { language: 'text', code: '', filename: 'src/.env' },
      { language: 'text', code: '' },
    ]),
    ['a.py', 'a-2.py', 'src/.env', 'src/.env-2', 'block-5.txt'],
  );
});

test('blocks are written under the directory asked for, each ending with a newline', async (t) => {
  const { work } = dirs(t);
  const saved = await saveBlocks(work, 'out', BLOCKS, false);
  assert.deepEqual(saved, [
    { path: 'out/hello.py', bytes: 12, language: 'python' },
    { path: 'out/src/util.js', bytes: 10, language: 'javascript' },
    { path: 'out/block-3.sh', bytes: 16, language: 'bash' },
  ]);
  assert.equal(readFileSync(join(work, 'out/hello.py'), 'utf8'), 'print("hi")\n');
  assert.equal(readFileSync(join(work, 'out/src/util.js'), 'utf8'), 'export {}\n');
  assert.equal(readFileSync(join(work, 'out/block-3.sh'), 'utf8'), 'python hello.py\n');
  // "." is the working directory itself
  assert.deepEqual((await saveBlocks(work, '.', [BLOCKS[0]!], false)).map((s) => s.path), ['hello.py']);
});

test('existing files: nothing is written without overwrite; with it they are replaced', async (t) => {
  const { work } = dirs(t);
  mkdirSync(join(work, 'out'));
  writeFileSync(join(work, 'out/hello.py'), 'mine\n');
  const err = await rejects(saveBlocks(work, 'out', BLOCKS, false), 409, 'FILE_EXISTS');
  assert.deepEqual(err.details, { files: ['out/hello.py'] });
  assert.equal(readFileSync(join(work, 'out/hello.py'), 'utf8'), 'mine\n');
  assert.deepEqual(readdirSync(join(work, 'out')), ['hello.py'], 'not even the other blocks were written');
  await saveBlocks(work, 'out', BLOCKS, true);
  assert.equal(readFileSync(join(work, 'out/hello.py'), 'utf8'), 'print("hi")\n');
});

test('outside the working directory is refused, by path or through a link', async (t) => {
  const { work, outside } = dirs(t);
  await rejects(saveDirectory(work, '../outside'), 400, 'OUTSIDE_WORKING_DIR');
  await rejects(saveDirectory(work, outside), 400, 'OUTSIDE_WORKING_DIR');
  await rejects(saveBlocks(work, '/tmp', BLOCKS, true), 400, 'OUTSIDE_WORKING_DIR');
  symlinkSync(outside, join(work, 'link'));
  await rejects(saveBlocks(work, 'link/sub', BLOCKS, true), 400, 'OUTSIDE_WORKING_DIR');
  // a link to a file: not written through, even with overwrite
  mkdirSync(join(work, 'out'));
  writeFileSync(join(outside, 'target.py'), 'keep\n');
  symlinkSync(join(outside, 'target.py'), join(work, 'out/hello.py'));
  await rejects(saveBlocks(work, 'out', BLOCKS, true), 400, 'OUTSIDE_WORKING_DIR');
  assert.equal(readFileSync(join(outside, 'target.py'), 'utf8'), 'keep\n');
  assert.deepEqual(readdirSync(outside), ['target.py']);
  // a link inside the working directory that stays inside is fine
  mkdirSync(join(work, 'real'));
  symlinkSync(join(work, 'real'), join(work, 'alias'));
  assert.deepEqual((await saveBlocks(work, 'alias', [BLOCKS[0]!], false)).map((s) => s.path), ['real/hello.py']);
});

test('saveTo naming the parent of the working directory, or any place outside it, is refused and nothing is written there', async (t) => {
  const { base, work, outside } = dirs(t);
  symlinkSync(outside, join(work, 'link'));
  // '..' is the parent itself: relative() answers exactly '..', with no separator after it
  for (const saveTo of ['..', '../x', '../outside', outside, 'link', 'link/sub']) {
    // checked before anything is sent to the assistant, and again when its code is written
    await rejects(saveDirectory(work, saveTo), 400, 'OUTSIDE_WORKING_DIR', `saveDirectory '${saveTo}'`);
    await rejects(saveBlocks(work, saveTo, BLOCKS, true), 400, 'OUTSIDE_WORKING_DIR', `saveBlocks '${saveTo}'`);
  }
  assert.deepEqual(readdirSync(base).sort(), ['outside', 'work'], 'nothing landed in the parent');
  assert.deepEqual(readdirSync(outside), [], 'nor outside');
});

test('attachments: files inside the working or media directory, real paths; anything else refused', async (t) => {
  const { work, outside, base } = dirs(t);
  const media = join(base, 'media');
  mkdirSync(media);
  writeFileSync(join(work, 'notes.txt'), 'n');
  writeFileSync(join(media, 'up.png'), 'p');
  writeFileSync(join(outside, 'secret'), 's');
  symlinkSync(join(outside, 'secret'), join(work, 'sneaky'));
  assert.deepEqual(await resolveInputFiles(work, [work, media], ['notes.txt', join(media, 'up.png')]), [join(work, 'notes.txt'), join(media, 'up.png')]);
  await rejects(resolveInputFiles(work, [work, media], ['../outside/secret']), 400, 'OUTSIDE_WORKING_DIR');
  await rejects(resolveInputFiles(work, [work, media], ['sneaky']), 400, 'OUTSIDE_WORKING_DIR');
  await rejects(resolveInputFiles(work, [work, media], ['missing.txt']), 404, 'WEB_AI_FILE_NOT_FOUND');
  await rejects(resolveInputFiles(work, [work, media], ['.']), 400, 'WEB_AI_FILE_NOT_FOUND');
  assert.equal(existsSync(join(work, 'missing.txt')), false);
});
