import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBrowserArgs, parseBrowserCommand, runBrowserArgs, runBrowserCommand, type BrowserActor } from '../../../../src/modules/automation/browser/commands.ts';
import { tokenizeArgs as tokenize, type CommandContext } from '../../../../src/agent/commands.ts';
import { AppError } from '../../../../src/core/errors.ts';
import { browserCommand } from '../../../../src/modules/automation/browser/index.ts';
import type { Action, ActionResult } from '../../../../src/modules/automation/browser/types.ts';

function ok(text: string): Action {
  const r = parseBrowserCommand(text);
  if (!r.ok) assert.fail(`expected ${JSON.stringify(text)} to parse, got: ${r.error}`);
  return r.action;
}

function err(text: string): string {
  const r = parseBrowserCommand(text);
  if (r.ok) assert.fail(`expected ${JSON.stringify(text)} to fail, got ${JSON.stringify(r.action)}`);
  return r.error;
}

test('tokenize: quotes group words, escapes inside double quotes, single quotes are literal', () => {
  assert.deepEqual(
    (tokenize(`a "b c" 'd "e"' "x\\"y" "p\\\\q" 'r\\n'`) as { value: string }[]).map((t) => t.value),
    ['a', 'b c', 'd "e"', 'x"y', 'p\\q', 'r\\n'],
  );
  assert.equal(tokenize('"open'), 'unterminated double quote');
  assert.equal(tokenize("'x"), 'unterminated single quote');
});

test('every subcommand parses to its Action', () => {
  assert.deepEqual(ok('/browser open https://example.com'), { action: 'open', url: 'https://example.com' });
  assert.deepEqual(ok('open example.com --timeout 5000 --tab t2'), { action: 'open', url: 'example.com', timeout: 5000, tab: 't2' });
  assert.deepEqual(ok('/browser screenshot'), { action: 'screenshot' });
  assert.deepEqual(ok('/browser screenshot --full'), { action: 'screenshot', full: true });
  assert.deepEqual(ok('/browser screenshot "#chart"'), { action: 'screenshot', target: '#chart' });
  assert.deepEqual(ok('/browser click "button.primary > span"'), { action: 'click', target: 'button.primary > span' });
  assert.deepEqual(ok('/browser click e12 --double'), { action: 'click', target: 'e12', double: true });
  assert.deepEqual(ok('/browser click "//a[@id=\'x\']" --right --timeout 100'), { action: 'click', target: "//a[@id='x']", button: 'right', timeout: 100 });
  assert.deepEqual(ok('/browser type "#q" "hello world"'), { action: 'type', target: '#q', text: 'hello world' });
  assert.deepEqual(ok('/browser type e3 "" --submit'), { action: 'type', target: 'e3', text: '', submit: true });
  assert.deepEqual(ok('/browser extract "h1" text'), { action: 'extract', target: 'h1', what: 'text' });
  assert.deepEqual(ok('/browser extract "a" attr:href --all'), { action: 'extract', target: 'a', what: 'attr:href', all: true });
  assert.deepEqual(ok('/browser extract ".x"'), { action: 'extract', target: '.x', what: 'text' });
  assert.deepEqual(ok('/browser extract ".x" html'), { action: 'extract', target: '.x', what: 'html' });
  assert.deepEqual(ok('/browser eval "document.title"'), { action: 'eval', script: 'document.title' });
  assert.deepEqual(ok('/browser eval "1 + 1" --timeout 50'), { action: 'eval', script: '1 + 1', timeout: 50 });
  assert.deepEqual(ok('/browser wait "#done"'), { action: 'wait', selector: '#done' });
  assert.deepEqual(ok('/browser wait "#done" --state hidden --timeout 900'), { action: 'wait', selector: '#done', state: 'hidden', timeout: 900 });
  assert.deepEqual(ok('/browser wait --navigation'), { action: 'wait', navigation: true });
  assert.deepEqual(ok('/browser wait --idle --idle-ms 250 --timeout 10000'), { action: 'wait', idle: true, idleMs: 250, timeout: 10000 });
  assert.deepEqual(ok('/browser snapshot'), { action: 'snapshot' });
  assert.deepEqual(ok('/browser snapshot --diff'), { action: 'snapshot', diff: true });
  assert.deepEqual(ok('/browser tabs'), { action: 'tabs' });
  assert.deepEqual(ok('/browser tab open'), { action: 'tab_open' });
  assert.deepEqual(ok('/browser tab open https://a.test/x'), { action: 'tab_open', url: 'https://a.test/x' });
  assert.deepEqual(ok('/browser tab switch t3'), { action: 'tab_switch', tab: 't3' });
  assert.deepEqual(ok('/browser tab close t3'), { action: 'tab_close', tab: 't3' });
  assert.deepEqual(ok('/browser console'), { action: 'console' });
  assert.deepEqual(ok('/browser console --limit 20 --clear'), { action: 'console', limit: 20, clear: true });
  assert.deepEqual(ok('/browser network --tab t1'), { action: 'network', tab: 't1' });
  assert.deepEqual(ok('/browser fetch https://a.test/post --max-chars 500'), { action: 'fetch', url: 'https://a.test/post', maxChars: 500 });
});

test('eval keeps an unquoted script as written, flags and quotes included', () => {
  assert.deepEqual(ok('/browser eval document.querySelectorAll("a").length'), { action: 'eval', script: 'document.querySelectorAll("a").length' });
  assert.deepEqual(ok('/browser eval () => { let x = 1; x--; return x --1 }'), { action: 'eval', script: '() => { let x = 1; x--; return x --1 }' });
  assert.deepEqual(ok(`/browser eval "JSON.stringify({a: \\"b\\"})"`), { action: 'eval', script: 'JSON.stringify({a: "b"})' });
});

test('parse errors say what is wrong and show the usage', () => {
  assert.match(err('/browser'), /missing subcommand/);
  assert.match(err('/browser fly'), /unknown subcommand 'fly'/);
  assert.match(err('/browser open'), /open needs a URL.*Usage: \/browser open/s);
  assert.match(err('/browser click'), /click needs a selector or ref/);
  assert.match(err('/browser click button.a span'), /unexpected extra argument 'span'.*quote/);
  assert.match(err('/browser type "#q"'), /type needs a selector or ref and the text/);
  assert.match(err('/browser type "#q hello'), /unterminated double quote/);
  assert.match(err('/browser extract "a" attr'), /'attr' is not something extract can read/);
  assert.match(err('/browser wait'), /exactly one of/);
  assert.match(err('/browser wait "#a" --idle'), /exactly one of/);
  assert.match(err('/browser wait --navigation --state hidden'), /--state applies to waiting for a selector/);
  assert.match(err('/browser click "#a" --timeout soon'), /--timeout must be a whole number/);
  assert.match(err('/browser click "#a" --timeout'), /--timeout needs a value/);
  assert.match(err('/browser click "#a" --hover'), /unknown option --hover/);
  assert.match(err('/browser screenshot --full=yes'), /--full takes no value/);
  assert.match(err('/browser tab move t1'), /unknown tab command 'move'/);
  assert.match(err('/browser tab switch'), /tab switch needs a tab id/);
  assert.match(err('/browser eval'), /eval needs JavaScript/);
  assert.match(err('/browser click "#a" --timeout 0'), /timeout/);
  assert.match(err('/browser wait "#a" --state gone'), /state/);
});

test('a quoted "--flag" is an argument, not an option', () => {
  assert.deepEqual(ok('/browser type "#q" "--full"'), { action: 'type', target: '#q', text: '--full' });
});

test('runBrowserCommand runs the parsed action and renders the result', async () => {
  const seen: Action[] = [];
  const actor: BrowserActor = {
    async act(a: Action): Promise<ActionResult> {
      seen.push(a);
      switch (a.action) {
        case 'open':
          return { tab: 't1', url: 'https://a.test/', title: 'A', status: 200 };
        case 'extract':
          return { tab: 't1', target: a.target, what: a.what, count: 3, values: ['x', null, 'z'] };
        case 'tabs':
          return { tabs: [{ id: 't1', url: 'https://a.test/', title: 'A', active: true }, { id: 't2', url: 'about:blank', title: '', active: false }], active: 't1' };
        case 'snapshot':
          return { tab: 't1', url: 'https://a.test/', title: 'A', text: 'button "Go" [ref=e1]', lines: 1, refs: 1, frames: 1, truncated: false, hadPrevious: true, diff: { added: ['button "Go" [ref=e1]'], removed: [], changed: [{ before: 'text "1"', after: 'text "2"' }], unchanged: 4 } };
        case 'eval':
          return { tab: 't1', result: { n: 1 } };
        default:
          throw new Error('unexpected');
      }
    },
  };
  const r1 = await runBrowserCommand('/browser open a.test', actor);
  assert.equal(r1.text, 'Opened https://a.test/ — "A" (HTTP 200) in tab t1.');
  assert.deepEqual(seen[0], { action: 'open', url: 'a.test' });
  const r2 = await runBrowserCommand('/browser extract "li" text --all', actor);
  assert.equal(r2.text, '3 matches:\n[1] x\n[2] (none)\n[3] z');
  const r3 = await runBrowserCommand('/browser tabs', actor);
  assert.equal(r3.text, '* t1  A — https://a.test/\n  t2  (untitled) — about:blank');
  const r4 = await runBrowserCommand('/browser snapshot --diff', actor);
  assert.match(r4.text, /Changes since the last snapshot: \+1 -0 ~1\n\+ button "Go" \[ref=e1\]\n~ text "1"\n  -> text "2"/);
  const r5 = await runBrowserCommand('/browser eval "({n: 1})"', actor);
  assert.equal(r5.text, '{\n  "n": 1\n}');
  assert.deepEqual(r5.data, { tab: 't1', result: { n: 1 } });
  await assert.rejects(runBrowserCommand('/browser click', actor), (e: unknown) => e instanceof AppError && e.status === 400 && e.code === 'BAD_COMMAND' && /click needs/.test(e.message));
  assert.equal(seen.length, 5, 'a command that does not parse never reaches the browser');
});

test('shell arguments (svc browser ...) parse the same way, one argument per element', async () => {
  const args = (...a: string[]) => {
    const r = parseBrowserArgs(a);
    if (!r.ok) assert.fail(r.error);
    return r.action;
  };
  assert.deepEqual(args('click', 'button.primary > span', '--double'), { action: 'click', target: 'button.primary > span', double: true });
  assert.deepEqual(args('type', '#q', 'hello world', '--submit'), { action: 'type', target: '#q', text: 'hello world', submit: true });
  assert.deepEqual(args('eval', 'document.title', '+', '"!"'), { action: 'eval', script: 'document.title + "!"' });
  assert.deepEqual(args('eval', '1 + 1', '--timeout', '50'), { action: 'eval', script: '1 + 1', timeout: 50 });
  assert.deepEqual(args('wait', '--idle'), { action: 'wait', idle: true });
  assert.deepEqual(args('tab', 'switch', 't2'), { action: 'tab_switch', tab: 't2' });
  const bad = parseBrowserArgs(['click']);
  assert.ok(!bad.ok && /click needs a selector or ref/.test(bad.error));
  assert.ok(!parseBrowserArgs([]).ok);
  const seen: Action[] = [];
  const r = await runBrowserArgs(['screenshot', '--full'], {
    async act(a: Action): Promise<ActionResult> {
      seen.push(a);
      return { tab: 't1', filename: 'x.png', url: '/media/x.png', bytes: 2048, fullPage: true };
    },
  });
  assert.deepEqual(seen, [{ action: 'screenshot', full: true }]);
  assert.equal(r.text, 'Screenshot saved: /media/x.png (2 KB, full page).');
});

test('the /browser slash command (its parser loaded on first use) runs an action and refuses what does not parse', async () => {
  const seen: Action[] = [];
  const command = browserCommand({
    async act(a: Action): Promise<ActionResult> {
      seen.push(a);
      return { tabs: [{ id: 't1', url: 'https://a.test/', title: 'A', active: true }], active: 't1' };
    },
  });
  const ctx = { openStream: () => assert.fail('the command does not stream'), caller: { kind: 'person' } } as unknown as CommandContext;
  assert.equal(command.name, 'browser');
  assert.equal(await command.run('tabs', ctx), '* t1  A — https://a.test/');
  await assert.rejects(async () => command.run('click', ctx), (e: unknown) => e instanceof AppError && e.code === 'BAD_COMMAND');
  assert.deepEqual(seen, [{ action: 'tabs' }]);
});
