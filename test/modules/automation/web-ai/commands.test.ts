// `/web-ai …` and `svc web-ai …` (pure): command words to typed calls, bad input to a 400 with the usage,
// and answers rendered for a person.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/core/errors.ts';
import { parseWebAiArgs, parseWebAiCommand, runWebAiCall } from '../../../../src/modules/automation/web-ai/commands.ts';
import type { WebAiApi } from '../../../../src/modules/automation/web-ai/types.ts';

const shell = (...argv: string[]) => parseWebAiArgs(argv.map((value) => ({ value, quoted: false })));

function bad(text: string, pattern: RegExp): void {
  try {
    parseWebAiCommand(text);
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'INVALID_COMMAND_ARGS');
    assert.match(err.message, pattern);
    assert.match(err.message, /Usage: \/web-ai /);
    return;
  }
  assert.fail(`'${text}' was accepted`);
}

test('asking: vendor, then the prompt (the rest of the words), then options anywhere', () => {
  assert.deepEqual(parseWebAiCommand('/web-ai query chatgpt write a haiku --timeout 90000'), {
    op: 'query',
    body: { vendor: 'chatgpt', prompt: 'write a haiku', timeout: 90000 },
  });
  assert.deepEqual(parseWebAiCommand('send gemini "Explain --this flag" --new --file a.txt --file=b.png'), {
    op: 'send',
    body: { vendor: 'gemini', prompt: 'Explain --this flag', files: ['a.txt', 'b.png'], newChat: true },
  });
  assert.deepEqual(parseWebAiCommand('code claude "a fizzbuzz in go" --save-to out --overwrite'), {
    op: 'code',
    body: { vendor: 'claude', prompt: 'a fizzbuzz in go', saveTo: 'out', overwrite: true },
  });
  // from a shell: the words are already split; `--` ends the options
  assert.deepEqual(shell('query', 'grok', 'what', 'is', '--', '--new', '?'), { op: 'query', body: { vendor: 'grok', prompt: 'what is --new ?' } });
});

test('the other subcommands', () => {
  assert.deepEqual(parseWebAiCommand('poll wa_abc123 --timeout 5000'), { op: 'poll', query: { sessionId: 'wa_abc123', timeout: 5000 } });
  assert.deepEqual(parseWebAiCommand('code-extract'), { op: 'code-extract', body: {} });
  assert.deepEqual(parseWebAiCommand('code-extract wa_abc123 --save-to src'), { op: 'code-extract', body: { sessionId: 'wa_abc123', saveTo: 'src' } });
  assert.deepEqual(parseWebAiCommand('code-extract --tab t3 --vendor chatgpt'), { op: 'code-extract', body: { tab: 't3', vendor: 'chatgpt' } });
  assert.deepEqual(parseWebAiCommand('stop'), { op: 'stop', body: {} });
  assert.deepEqual(parseWebAiCommand('stop --vendor gemini'), { op: 'stop', body: { vendor: 'gemini' } });
  assert.deepEqual(parseWebAiCommand('status claude'), { op: 'status', vendor: 'claude' });
  assert.deepEqual(parseWebAiCommand('sessions'), { op: 'sessions' });
  assert.deepEqual(parseWebAiCommand('profiles'), { op: 'profiles' });
  assert.deepEqual(parseWebAiCommand(''), { op: 'help' });
  assert.deepEqual(parseWebAiCommand('help'), { op: 'help' });
});

test('bad input: 400 saying what is wrong, with the usage', () => {
  bad('ask chatgpt hi', /unknown subcommand 'ask'/);
  bad('query chatgpt', /needs a prompt after the vendor/);
  bad('query', /needs a vendor and a prompt/);
  bad('query ChatGPT hi', /vendor: a vendor id is lowercase/);
  bad('query chatgpt hi --timeout soon', /--timeout must be a whole number/);
  bad('query chatgpt hi --save-to out', /unknown option --save-to/);
  bad('send chatgpt hi --new=yes', /--new takes no value/);
  bad('poll', /poll needs a session id/);
  bad('poll abc', /sessionId: a web-ai session id looks like wa_/);
  bad('code-extract wa_abc123 --tab t1', /not both/);
  bad('status', /status needs a vendor/);
  bad('sessions now', /unexpected 'now'/);
  bad('query chatgpt "unclosed', /Usage/);
});

test('answers rendered for a person', async () => {
  const calls: unknown[] = [];
  const answer = { sessionId: 'wa_s1x9', vendor: 'chatgpt', tab: 't2', text: 'Here you go.', chars: 12, elapsedMs: 10 };
  const api: WebAiApi = {
    send: async (b) => (calls.push(b), { sessionId: 'wa_s1x9', vendor: b.vendor, tab: 't2', url: 'https://chatgpt.com/' }),
    poll: async () => ({ ...answer, state: 'streaming', complete: false }),
    query: async () => ({ ...answer, state: 'complete', complete: true }),
    code: async () => ({
      ...answer,
      state: 'complete',
      complete: true,
      blocks: [{ language: 'python', code: 'print(1)', filename: 'a.py' }, { language: 'text', code: 'x' }],
      saved: [{ path: 'out/a.py', bytes: 9, language: 'python' }, { path: 'out/block-2.txt', bytes: 2, language: 'text' }],
    }),
    extract: async () => ({ vendor: 'chatgpt', tab: 't2', blocks: [] }),
    stop: async () => ({ vendor: 'chatgpt', tab: 't2', stopped: false }),
    status: async () => ({
      vendor: 'claude',
      label: 'Claude',
      tab: 't4',
      url: 'https://claude.ai/login',
      title: 'Claude',
      state: 'needs_login',
      writing: false,
      checks: [
        { check: 'login', found: true, tried: ['url /\\/login/i'], detail: 'url https://claude.ai/login' },
        { check: 'composer', found: false, tried: ['textbox /write your prompt/i'] },
      ],
    }),
    sessions: async () => ({ sessions: [{ sessionId: 'wa_s1x9', vendor: 'chatgpt', tab: 't2', state: 'complete', prompt: 'hi', chars: 12, startedAt: 1, updatedAt: 2 }] }),
    profiles: async () => ({ file: '/h/web-ai-profiles.json', profiles: [{ id: 'chatgpt', label: 'ChatGPT', url: 'https://chatgpt.com/', source: 'override' }] }),
  };
  const run = async (text: string) => (await runWebAiCall(parseWebAiCommand(text), api)).text;
  assert.equal(await run('send chatgpt hi'), 'Sent to chatgpt (session wa_s1x9, tab t2). Read the answer with: svc web-ai poll wa_s1x9 --timeout 60000');
  assert.deepEqual(calls, [{ vendor: 'chatgpt', prompt: 'hi' }]);
  assert.equal(await run('query chatgpt hi'), 'Here you go.\n\n[chatgpt, session wa_s1x9: complete]');
  assert.match(await run('poll wa_s1x9'), /still writing, 12 characters so far; poll again\]$/);
  assert.equal(
    await run('code chatgpt hi --save-to out'),
    'a.py:\n```python\nprint(1)\n```\n(saved to out/a.py)\n\n```text\nx\n```\n(saved to out/block-2.txt)\n\n[chatgpt, session wa_s1x9: 2 code blocks]',
  );
  assert.equal(await run('code-extract'), 'No code blocks in the latest answer (tab t2).');
  assert.equal(await run('stop'), 'Nothing was being written on chatgpt.');
  assert.equal(
    await run('status claude'),
    'Claude: needs login — https://claude.ai/login (tab t4)\n  ✓ login: url https://claude.ai/login\n  ✗ composer (tried textbox /write your prompt/i)',
  );
  assert.equal(await run('sessions'), 'wa_s1x9  chatgpt  complete  12 chars  "hi"');
  assert.equal(await run('profiles'), 'chatgpt  ChatGPT  https://chatgpt.com/  (override)\nProfile file: /h/web-ai-profiles.json');
  assert.match(await run('help'), /\/web-ai query <vendor> <prompt…>/);
});
