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
