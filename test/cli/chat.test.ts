import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../support/agent.ts';
import { runSvc } from '../support/cli.ts';


const svc = (args: string[], stdin?: string) => runSvc(args, { stdin });

test('svc chat prints the streamed answer on stdout and steps on stderr', async (t) => {
  const server = await startAgentServer();
  t.after(() => server.close());
  const ok = await svc(['chat', '--url', server.url, 'run the tool scenario:tool']);
  assert.equal(ok.code, 0);
  assert.match(ok.stdout, /hello-from-tool/);
  assert.match(ok.stderr, /\[Bash running\]/);
  const piped = await svc(['chat', '--url', server.url, '-q'], 'from stdin scenario:text');
  assert.equal(piped.code, 0);
  assert.equal(piped.stdout.trim(), 'Hello from the fake model. This is a plain text answer.');
  assert.equal(piped.stderr, '');
  const failed = await svc(['chat', '--url', server.url, 'scenario:error']);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /^svc: run error: Claude Code's model service answered with an error/m);
  server.app.services.settings.update({ agent: { provider: 'gemini', executables: { gemini: '/nonexistent/gemini' } } });
  const notInstalled = await svc(['chat', '--url', server.url, 'hello']);
  assert.equal(notInstalled.code, 1);
  assert.match(notInstalled.stderr, /Gemini CLI is not installed[\s\S]*To fix it, run: npm install -g @google\/gemini-cli/);
  await server.close();
  const down = await svc(['chat', '--url', server.url, 'hello']);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /cannot reach .*svc serve/);
});
