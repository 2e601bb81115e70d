// query and docs/edit through the manager, in a real instance's project (a git repository): real
// git, real files; refusals change nothing and a patch that does not apply leaves the file as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, until, type TestManager } from '../dashboard/helpers.ts';

test('query runs read-only commands in the project and refuses the rest; docs/edit edits Markdown in the allowlist only', async () => {
  const project = mkdtempSync(join(tmpdir(), 'svc-ceo-project-'));
  const outside = mkdtempSync(join(tmpdir(), 'svc-ceo-outside-'));
  let instance: AgentTestServer | undefined;
  let manager: TestManager | undefined;
  try {
    mkdirSync(join(project, 'docs'));
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'README.md'), '# Project\n\n## Usage\n\nold usage\n\n## License\n\nMIT\n');
    writeFileSync(join(project, 'docs', 'guide.md'), 'one\ntwo\nthree\n');
    writeFileSync(join(project, 'src', 'index.ts'), 'export {};\n');
    writeFileSync(join(outside, 'secret.md'), 'secret\n');
    symlinkSync(join(outside, 'secret.md'), join(project, 'docs', 'link.md'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: project });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'first commit');

    instance = await startAgentServer({ workingDir: project });
    manager = await startManager();
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token })).body.id;
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.workingDir === project ? true : undefined), 'the working dir is known');
    const query = (command: string) => sendJson(`${manager!.url}/api/svc-ceo/query`, 'POST', { source: 'repo', instanceId: id, command });
    const edit = (body: Record<string, unknown>) => sendJson(`${manager!.url}/api/svc-ceo/docs/edit`, 'POST', { instanceId: id, ...body });

    const log = await query('git log --oneline');
    assert.equal(log.status, 200, JSON.stringify(log.body));
    assert.match(log.body.output, /first commit/);
    assert.equal(log.body.untrusted, true);
    assert.match((await query('cat README.md')).body.output, /old usage/);
    assert.match((await query('ls docs')).body.output, /guide\.md/);
    const dashboard = (await sendJson(`${manager.url}/api/svc-ceo/query`, 'POST', { source: 'dashboard' })).body;
    assert.deepEqual(dashboard.instances.map((i: any) => i.id), [id]);

    for (const command of ['sed -i s/old/new/ README.md', 'git diff --output=/tmp/svc-ceo-x', 'ls; touch pwned', 'cat README.md | sh', 'cat ../x']) {
      const r = await query(command);
      assert.equal(r.status, 400, command);
      assert.equal(r.body.error, 'QUERY_REFUSED');
    }
    assert.equal(existsSync('/tmp/svc-ceo-x'), false);
    assert.equal(existsSync(join(project, 'pwned')), false);
    assert.match(readFileSync(join(project, 'README.md'), 'utf8'), /old usage/);
    assert.equal((await query('cat docs/link.md')).status, 400, 'a symlink out of the project is not read');

    // edits
    const replaced = await edit({ path: 'README.md', operation: 'replace_section', content: '## Usage\n\nnew usage\n', reason: 'refresh' });
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    assert.equal(readFileSync(join(project, 'README.md'), 'utf8'), '# Project\n\n## Usage\n\nnew usage\n\n## License\n\nMIT\n');
    assert.equal((await edit({ path: 'docs/new.md', operation: 'append_section', content: '# New\n' })).body.created, true);
    assert.equal(readFileSync(join(project, 'docs', 'new.md'), 'utf8'), '# New\n');
    const patched = await edit({ path: 'docs/guide.md', operation: 'apply_patch', content: '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(readFileSync(join(project, 'docs', 'guide.md'), 'utf8'), 'one\nTWO\nthree\n');

    const stale = await edit({ path: 'docs/guide.md', operation: 'apply_patch', content: '@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n' });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error, 'PATCH_NOT_APPLIED');
    assert.equal(readFileSync(join(project, 'docs', 'guide.md'), 'utf8'), 'one\nTWO\nthree\n', 'a patch that does not apply changes nothing');
    for (const path of ['src/index.ts', 'package.json', 'docs/../src/x.md', '../x.md', 'NOTES.md']) {
      const r = await edit({ path, operation: 'append_section', content: '# x\n' });
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error, 'DOCS_EDIT_REFUSED', path);
    }
    assert.equal(readFileSync(join(project, 'src', 'index.ts'), 'utf8'), 'export {};\n');
    assert.equal((await edit({ path: 'docs/link.md', operation: 'append_section', content: '# x\n' })).status, 400, 'a symlink out of the project is not written');
    assert.equal(readFileSync(join(outside, 'secret.md'), 'utf8'), 'secret\n');

    // svc's own notes
    const note = await sendJson(`${manager.url}/api/svc-ceo/docs/edit`, 'POST', { path: 'plan.md', operation: 'append_section', content: '# Plan\n' });
    assert.equal(note.body.target, 'notes');
    assert.equal(readFileSync(join(manager.home, 'notes', 'plan.md'), 'utf8'), '# Plan\n');

    const audit = (await getJson(`${manager.url}/api/svc-ceo/audit?limit=300`)).body.audit;
    assert.equal(audit.filter((r: any) => r.kind === 'policy' && r.action === 'query' && !r.ok).length, 5);
    assert.equal(audit.filter((r: any) => r.kind === 'docs_edit' && r.ok).length, 4);
  } finally {
    await manager?.close();
    await instance?.close();
    rmSync(project, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
