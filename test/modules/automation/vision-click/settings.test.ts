import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_VISION_SETTINGS, visionSettings } from '../../../../src/modules/automation/vision-click/settings.ts';
import { coreSettings } from '../../../../src/servers/core.ts';

test('the defaults are valid: offline OCR on the browser, threshold 0.5, Ollama-style endpoint', () => {
  assert.deepEqual(visionSettings.schema.parse(DEFAULT_VISION_SETTINGS), DEFAULT_VISION_SETTINGS);
  assert.equal(DEFAULT_VISION_SETTINGS.locator, 'ocr');
  assert.equal(DEFAULT_VISION_SETTINGS.target, 'browser');
  assert.equal(DEFAULT_VISION_SETTINGS.minConfidence, 0.5);
  // the API key is a secret of the composed settings document: masked, and known to trace redaction
  const withKey = { ...coreSettings.defaults, vision: { ...DEFAULT_VISION_SETTINGS, apiKey: 'sk-vision-secret' } };
  assert.equal((coreSettings.redact(withKey).vision as { apiKey: string }).apiKey, '***');
  assert.ok(coreSettings.secretValues(withKey).includes('sk-vision-secret'));
});

test('bad values are refused with the field named', () => {
  const bad = (patch: Record<string, unknown>, field: string) => {
    const r = visionSettings.schema.safeParse({ ...DEFAULT_VISION_SETTINGS, ...patch });
    assert.equal(r.success, false, JSON.stringify(patch));
    const issue = r.error!.issues[0]!;
    assert.equal(issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path[0], field);
  };
  bad({ locator: 'gpt' }, 'locator');
  bad({ target: 'phone' }, 'target');
  bad({ minConfidence: 1.2 }, 'minConfidence');
  bad({ baseUrl: 'ftp://x' }, 'baseUrl');
  bad({ baseUrl: 'not a url' }, 'baseUrl');
  bad({ cliProvider: 'opencode' }, 'cliProvider');
  bad({ timeoutSec: 0 }, 'timeoutSec');
  bad({ maxImageSide: -1 }, 'maxImageSide');
  bad({ display: 'screen one' }, 'display');
  bad({ unknown: 1 }, 'unknown');
  assert.ok(visionSettings.schema.safeParse({ ...DEFAULT_VISION_SETTINGS, display: ':1.0', baseUrl: 'https://api.example.com/v1' }).success);
});
