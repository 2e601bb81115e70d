// The pure parts of reading an answer: languages, file names the answer gives for its blocks, and when an
// answer counts as complete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectFilename, extensionFor, normalizeLanguage, safeRelativePath, toBlock } from '../../../../src/modules/automation/web-ai/code.ts';
import { advance, type Progress } from '../../../../src/modules/automation/web-ai/completion.ts';

test('languages: labels, classes and aliases normalized; none is text', () => {
  assert.equal(normalizeLanguage('Python'), 'python');
  assert.equal(normalizeLanguage('language-ts'), 'typescript');
  assert.equal(normalizeLanguage('JavaScript'), 'javascript');
  assert.equal(normalizeLanguage('C++'), 'cpp');
  assert.equal(normalizeLanguage('sh'), 'bash');
  assert.equal(normalizeLanguage('Plain Text'), 'text');
  assert.equal(normalizeLanguage(''), 'text');
  assert.equal(normalizeLanguage(null), 'text');
  assert.equal(normalizeLanguage('Visual Basic'), 'visual-basic');
  assert.equal(extensionFor('python'), 'py');
  assert.equal(extensionFor('bash'), 'sh');
  assert.equal(extensionFor('haxe'), 'haxe');
  assert.equal(extensionFor('visual-basic'), 'txt');
});

test('a file name from a comment on the block\'s first line', () => {
  assert.equal(detectFilename('', '// src/util.js\nexport {}'), 'src/util.js');
  assert.equal(detectFilename('', '# filename: app.py\nprint(1)'), 'app.py');
  assert.equal(detectFilename('', '<!-- index.html -->\n<p>'), 'index.html');
  assert.equal(detectFilename('', '/* styles/main.css */\nbody{}'), 'styles/main.css');
  assert.equal(detectFilename('', '-- schema.sql\ncreate table t();'), 'schema.sql');
  assert.equal(detectFilename('', '# Run the server\nnode .'), undefined);
  assert.equal(detectFilename('', '#!/usr/bin/env python3\nprint(1)'), undefined);
  assert.equal(detectFilename('', '// TODO: fix.me later\nx'), undefined);
});

test('a file name from the line before the block, only where the wording gives one', () => {
  const named: [string, string][] = [
    ['Here is the code.\nSave this as hello.py:', 'hello.py'],
    ['**`src/app.ts`**', 'src/app.ts'],
    ['File: config.yaml', 'config.yaml'],
    ['Create a file called hello.py with the following content:', 'hello.py'],
    ['Here is the updated src/app.py:\npython\nCopy code', 'src/app.py'],
    ['### `main.go`', 'main.go'],
    ['1. Put this in ./lib/db.rb:', 'lib/db.rb'],
    ['Add a Dockerfile:', 'Dockerfile'],
    ['And your .gitignore:', '.gitignore'],
  ];
  for (const [before, name] of named) assert.equal(detectFilename(before, 'x'), name, before);
  const none = [
    'Create a Node.js server:',
    'Here is how to do it in Node.js:',
    'Deploy it to example.com:',
    'Run it with:',
    'Version 1.2 is out',
    'In ../etc/passwd:',
    'Save it to /etc/cron.d/job:',
    'I updated app.py.\nHere is a test:',
  ];
  for (const before of none) assert.equal(detectFilename(before, 'x'), undefined, before);
});

test('safe relative paths only', () => {
  assert.equal(safeRelativePath('./src/a.ts'), 'src/a.ts');
  assert.equal(safeRelativePath('src\\win.ts'), 'src/win.ts');
  for (const bad of ['/etc/passwd', '../x.py', 'a/../../x.py', '~/x.sh', 'C:/x.py', 'a//b.py', 'a/./b.py', 'x\u0000.py', '']) {
    assert.equal(safeRelativePath(bad), undefined, JSON.stringify(bad));
  }
});

test('a block: the code exactly, without its trailing newline; the language normalized; the name when given', () => {
  assert.deepEqual(toBlock({ code: 'def f():\n\tpass\n\n', language: 'language-py', before: 'Save as f.py:' }), { language: 'python', code: 'def f():\n\tpass', filename: 'f.py' });
  assert.deepEqual(toBlock({ code: '  x  ', language: null, before: '' }), { language: 'text', code: '  x  ' });
});

test('complete: a new message, no stop button, text unchanged for stableMs', () => {
  const start: Progress = { text: '', changedAt: 0, complete: false };
  // nothing new yet (the stop button shows, or not): not complete
  let p = advance(start, 2, { count: 2, texts: [], stopVisible: true }, 100, 1000);
  assert.deepEqual(p, { text: '', changedAt: 0, complete: false });
  p = advance(p, 2, { count: 2, texts: [], stopVisible: false }, 5000, 1000);
  assert.equal(p.complete, false, 'no new message is no answer');
  // text grows while the stop button shows
  p = advance(p, 2, { count: 3, texts: ['Hel'], stopVisible: true }, 5100, 1000);
  assert.deepEqual(p, { text: 'Hel', changedAt: 5100, complete: false });
  p = advance(p, 2, { count: 3, texts: ['Hello'], stopVisible: false }, 5200, 1000);
  assert.deepEqual(p, { text: 'Hello', changedAt: 5200, complete: false });
  // the stop button is gone, but the text is not yet stable long enough
  p = advance(p, 2, { count: 3, texts: ['Hello'], stopVisible: false }, 6100, 1000);
  assert.equal(p.complete, false);
  // the stop button showing again holds it back even when the text is old
  assert.equal(advance(p, 2, { count: 3, texts: ['Hello'], stopVisible: true }, 9000, 1000).complete, false);
  p = advance(p, 2, { count: 3, texts: ['Hello'], stopVisible: false }, 6200, 1000);
  assert.deepEqual(p, { text: 'Hello', changedAt: 5200, complete: true, end: 3 });
  // several messages in one answer are joined
  assert.equal(advance(start, 0, { count: 2, texts: [' a ', 'b'], stopVisible: false }, 1, 0).text, 'a\n\nb');
  // an empty message is not an answer
  assert.equal(advance(start, 0, { count: 1, texts: ['  '], stopVisible: false }, 9999, 0).complete, false);
});

test('a language named like an inherited property is a language like any other, not a lookup of the prototype', () => {
  assert.equal(normalizeLanguage('constructor'), 'constructor');
  assert.equal(normalizeLanguage('toString'), 'tostring');
  assert.equal(extensionFor('constructor'), 'txt', 'eleven letters: too long to be its own extension');
  assert.equal(extensionFor('valueof'), 'valueof');
  assert.equal(extensionFor('__proto__'), 'txt');
});
