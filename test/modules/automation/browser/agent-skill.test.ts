// "Open a page and tell me its title", end to end: the real Claude Code CLI (against the fake
// model, which calls its Bash tool with `svc browser …` commands) reaches the service's browser
// server through the `svc` shim on its PATH, and the answer carries the page title.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel } from '../../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../../support/real-clis.ts';
import { startServer } from '../../../support/server.ts';
import { postNdjson } from '../../../support/ndjson.ts';
import { startSite } from '../../../fixtures/browser/site.ts';
import { freePort } from '../../../support/ports.ts';


test('the agent opens a page with the browser skill and reports its title', {
  skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh',
  timeout: 180_000,
}, async () => {
  const site = await startSite();
  const fake = await startFakeModel({ shellCommand: `svc browser open ${site.url}/article && svc browser eval "document.title"` });
  const server = await startServer({ browserPort: await freePort(), retryBaseMs: 10 });
  const { env, cwd } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-skill-')));
  server.app.services.settings.update({
    agent: { provider: 'claude', executables: { claude: realCliPath('claude')! }, env, workingDir: cwd, retries: 0, idleTimeoutSec: 120 },
  });
  try {
    const lines = await (await postNdjson(`${server.url}/api/message`, { prompt: 'Open the article page and tell me its title. scenario:tool' })).done;
    const done = lines.at(-1);
    assert.equal(done.status, 'ok', JSON.stringify(lines.slice(-3)));
    const tool = lines.find((l) => l.type === 'tool' && l.status === 'ok');
    assert.match(tool.output, /Opened .*\/article/);
    const { result: title } = await server.app.services.browser.act({ action: 'eval', script: 'document.title' });
    assert.equal(typeof title, 'string');
    assert.ok(done.text.includes(String(title)), `the answer quotes the title '${String(title)}': ${done.text}`);
    // the skill's instructions reached the CLI's system prompt
    const call = fake.requests.find((r) => r.api === 'anthropic');
    assert.match(JSON.stringify(call?.body ?? ''), /svc browser open <url>/);
  } finally {
    // each closed whatever the others do: an open fake or site would keep the file running until its timeout
    await Promise.allSettled([server.close(), fake.close(), site.close()]);
  }
});
