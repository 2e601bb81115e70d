// Vendor profiles (pure): the built-ins are valid, the user's file overrides and adds profiles, a bad file
// is a 400 naming each bad field, and the helpers that match pages and describe locators.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/core/errors.ts';
import { BUILTIN_PROFILES } from '../../../../src/modules/automation/web-ai/builtins.ts';
import {
  belongsTo,
  describeFinder,
  matchesPattern,
  mergeProfile,
  ProfileSchema,
  resolveProfiles,
  toPattern,
} from '../../../../src/modules/automation/web-ai/profiles.ts';

const FILE = '/home/u/.svc/web-ai-profiles.json';
const resolveWith = (content: unknown) => resolveProfiles(BUILTIN_PROFILES, { name: FILE, content });

function invalid(content: unknown): AppError {
  try {
    resolveWith(content);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 400);
    assert.equal(err.code, 'WEB_AI_PROFILE_INVALID');
    assert.ok(err.message.includes(FILE), err.message);
    return err;
  }
  assert.fail('the file was accepted');
}

test('the built-in profiles are complete and valid, and only generic has no url', () => {
  assert.deepEqual(Object.keys(BUILTIN_PROFILES).sort(), ['chatgpt', 'claude', 'gemini', 'generic', 'grok']);
  for (const [id, p] of Object.entries(BUILTIN_PROFILES)) {
    const r = ProfileSchema.safeParse(p);
    assert.ok(r.success, `${id}: ${JSON.stringify(r.error?.issues)}`);
    assert.equal(p.url === undefined, id === 'generic', id);
  }
  const all = resolveProfiles(BUILTIN_PROFILES);
  assert.deepEqual([...all.values()].map((p) => [p.id, p.source]), [
    ['generic', 'builtin'], ['chatgpt', 'builtin'], ['gemini', 'builtin'], ['claude', 'builtin'], ['grok', 'builtin'],
  ]);
});

test('an override replaces the fields it gives, merges nested ones one level, and null removes a field', () => {
  const all = resolveWith({
    profiles: {
      chatgpt: { url: 'http://127.0.0.1:9/', composer: '#prompt-input', code: { block: 'div.code' }, stop: null, stableMs: 500 },
    },
  });
  const p = all.get('chatgpt')!;
  assert.equal(p.source, 'override');
  assert.equal(p.url, 'http://127.0.0.1:9/');
  assert.equal(p.composer, '#prompt-input');
  assert.equal(p.stableMs, 500);
  assert.equal(p.stop, undefined);
  // code.block replaced, code.text and code.language kept from the built-in
  assert.deepEqual(p.code, { ...BUILTIN_PROFILES.chatgpt!.code, block: 'div.code' });
  // the rest is the built-in's
  assert.deepEqual(p.send, BUILTIN_PROFILES.chatgpt!.send);
  assert.deepEqual(p.login, BUILTIN_PROFILES.chatgpt!.login);
  assert.deepEqual(all.get('gemini'), { ...BUILTIN_PROFILES.gemini, id: 'gemini', source: 'builtin' });
});

test('mergeProfile: lists replace, objects merge one level', () => {
  const base = { label: 'A', composer: ['#a', '#b'], login: { url: '/x/', elements: ['#l'] } };
  assert.deepEqual(mergeProfile(base, { composer: ['#c'], login: { title: '/t/' } }), {
    label: 'A',
    composer: ['#c'],
    login: { url: '/x/', elements: ['#l'], title: '/t/' },
  });
});

test('a new profile extends generic unless it names another, and needs nothing but what generic lacks', () => {
  const all = resolveWith({
    profiles: {
      acme: { url: 'https://chat.acme.test/', label: 'Acme' },
      work: { extends: 'claude', url: 'https://claude.work.test/new' },
      team: { extends: 'work', label: 'Team' },
    },
  });
  const acme = all.get('acme')!;
  assert.equal(acme.source, 'user');
  assert.deepEqual(acme.composer, BUILTIN_PROFILES.generic!.composer);
  assert.deepEqual(all.get('work')!.answer, BUILTIN_PROFILES.claude!.answer);
  assert.equal(all.get('team')!.url, 'https://claude.work.test/new');
  assert.equal(all.get('team')!.label, 'Team');
});

test('a bad file is one 400 naming every bad field', () => {
  const err = invalid({
    profiles: {
      chatgpt: { composer: 42, stableMs: -1, colour: 'red' },
      gemini: { send: { role: 'buton', name: 'Send' } },
      claude: { login: { url: '/(unclosed/' } },
      acme: { label: 'No url' },
      'Bad Id': {},
    },
  });
  const issues = (err.details as { issues: string[] }).issues;
  const fields = issues.map((i) => i.split(':')[0]);
  for (const f of ['profiles.chatgpt.composer', 'profiles.chatgpt.stableMs', 'profiles.chatgpt.colour', 'profiles.gemini.send.role', 'profiles.claude.login.url', 'profiles.Bad Id']) {
    assert.ok(fields.includes(f), `${f} in ${JSON.stringify(issues)}`);
  }
  assert.ok(issues.some((i) => i.startsWith('profiles.chatgpt.colour: unknown field')), JSON.stringify(issues));
  assert.ok(issues.some((i) => i.startsWith('profiles.claude.login.url: not a valid regular expression')), JSON.stringify(issues));
});

test('completeness is checked after merging: a user profile missing what it needs names the field', () => {
  const err = invalid({ profiles: { bare: { extends: 'generic', composer: [] } } });
  assert.match(err.message, /profiles\.bare\.composer/);
  const loop = invalid({ profiles: { a: { extends: 'b' }, b: { extends: 'a' } } });
  assert.match(loop.message, /in a circle \(a → b → a\)|in a circle \(b → a → b\)/);
  assert.match(invalid({ profiles: { a: { extends: 'nope' } } }).message, /profiles\.a\.extends: there is no profile 'nope'/);
  assert.match(invalid({ profiles: { chatgpt: { url: 'file:///etc/passwd' } } }).message, /profiles\.chatgpt\.url: must be an http\(s\) URL/);
  assert.match(invalid({ profile: {} }).message, /unknown field/);
});

test('patterns: /regex/flags or a case-insensitive substring', () => {
  assert.deepEqual(toPattern('/^send/i'), /^send/i);
  assert.equal(toPattern('Send'), 'Send');
  assert.equal(matchesPattern('https://claude.ai/login?x', '/\\/login\\b/i'), true);
  assert.equal(matchesPattern('Just a moment...', 'just a MOMENT'), true);
  assert.equal(matchesPattern('https://claude.ai/new', '/\\/login\\b/i'), false);
});

test('a page belongs to a profile by its origin or one of its hosts', () => {
  const p = { url: 'https://chatgpt.com/', hosts: ['chatgpt.com', 'chat.openai.com'] };
  assert.equal(belongsTo('https://chatgpt.com/c/123', p), true);
  assert.equal(belongsTo('https://chat.openai.com/', p), true);
  assert.equal(belongsTo('https://eu.chatgpt.com/', p), true);
  assert.equal(belongsTo('https://notchatgpt.com/', p), false);
  assert.equal(belongsTo('http://127.0.0.1:9/', { url: 'http://127.0.0.1:9/' }), true);
  assert.equal(belongsTo('http://127.0.0.1:8/', { url: 'http://127.0.0.1:9/' }), false);
  assert.equal(belongsTo('about:blank', p), false);
});

test('locators are described the way a person reads them', () => {
  assert.deepEqual(describeFinder(['#prompt-textarea', { role: 'button', name: '/^send/i' }, { role: 'textbox' }, { role: 'link', name: 'Sign in', exact: true }]), [
    '"#prompt-textarea"',
    'button /^send/i',
    'textbox',
    'link "Sign in" (exact)',
  ]);
});
