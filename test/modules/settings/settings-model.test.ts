// The settings document (src/modules/settings/settings.model.ts): merge patches, validation, redaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergePatch } from '../../../src/modules/settings/settings.model.ts';
import { coreSettings } from '../../../src/servers/core.ts';

test('settings merge patch: objects merge, arrays replace, null resets, *** keeps secrets', () => {
  const current = structuredClone(coreSettings.defaults);
  current.agent.env = { KEY: 'secret', OTHER: 'x' };
  current.agent.fallback = ['codex'];
  const merged = mergePatch(current, { agent: { fallback: ['gemini', 'opencode'], model: null, env: { KEY: '***', OTHER: null, NEW: 'n' } } }, coreSettings.defaults) as typeof current;
  assert.deepEqual(merged.agent.fallback, ['gemini', 'opencode']);
  assert.equal(merged.agent.model, '');
  assert.deepEqual(merged.agent.env, { KEY: 'secret', NEW: 'n' });
  assert.equal(merged.agent.provider, 'claude');
  const redacted = coreSettings.redact(coreSettings.validate(merged)) as typeof current;
  assert.deepEqual(redacted.agent.env, { KEY: '***', NEW: '***' });
});

test('a secret inside an object of a section (memory.embeddings.apiKey) is redacted and known as a secret value', () => {
  const current = structuredClone(coreSettings.defaults);
  current.memory.embeddings = { baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', apiKey: 'sk-nested' };
  const redacted = coreSettings.redact(current) as typeof current;
  assert.deepEqual(redacted.memory.embeddings, { baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', apiKey: '***' });
  assert.ok(coreSettings.secretValues(current).includes('sk-nested'));
  // sending the redacted form back keeps the secret
  const merged = mergePatch(current, { memory: { embeddings: { apiKey: '***', model: 'other' } } }, coreSettings.defaults) as typeof current;
  assert.deepEqual(merged.memory.embeddings, { baseUrl: 'http://127.0.0.1:11434/v1', model: 'other', apiKey: 'sk-nested' });
});
