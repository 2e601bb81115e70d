// The hub's own push notifications: a device turned on in the dashboard is told of a tool call held in
// any of its instances (encrypted and VAPID-signed, to a push service on loopback that decrypts as a
// browser does), with the instance named; its Allow token decides the request on the instance that holds
// it, once, and the outcome replaces the notification. The hub's request ids survive its restart: a
// notification sent before still decides. An agent's credential cannot add a device.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hubRequestId } from '../../../src/modules/dashboard/index.ts';
import { startFakePushService } from '../../support/fake-push-service.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { startManager, until, type TestManager } from './helpers.ts';

const hold = (server: TestServer, runId: string, command: string) =>
  server.app.services.permissions.ask({ sessionId: server.app.services.chat.activeSession().id, runId, provider: 'claude' }, { tool: 'Bash', input: { command } });

const bridged = (manager: TestManager, id: string) =>
  until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), `${id} bridged`);

test('the hub pushes every instance\'s held tool call; its token decides on the instance, once, also after the hub restarted', async () => {
  const pushService = await startFakePushService();
  const alpha = await startServer({ classifyPeer: () => 'remote' as const });
  let manager = await startManager();
  try {
    const added = await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: alpha.url, token: alpha.app.services.token, label: 'alpha' });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const instanceId = added.body.id as string;
    await bridged(manager, instanceId);

    const browser = pushService.subscribe();
    for (const header of ['x-svc-run-token', 'x-svc-connector']) {
      const refused = await getJson(`${manager.url}/api/push/subscriptions`, { method: 'POST', headers: { 'content-type': 'application/json', [header]: 'whatever' }, body: JSON.stringify(browser.subscription) });
      assert.deepEqual([refused.status, refused.body.error], [403, 'PERSON_REQUIRED'], `${header}: an agent adds no device`);
    }
    const subscribed = await sendJson(`${manager.url}/api/push/subscriptions`, 'POST', browser.subscription);
    assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
    const { body: key } = await getJson(`${manager.url}/api/push/vapid-public-key`);

    // a request held on the instance rings the hub's device, the instance named first
    const answer = hold(alpha, 'tr_hub_1', 'npm publish');
    const [pushed] = await pushService.waitFor(1);
    assert.deepEqual(pushService.refused, []);
    assert.equal(pushed!.vapidKey, key.publicKey, 'signed with the hub\'s own key');
    const payload = pushed!.payload;
    assert.equal(payload.kind, 'permission');
    assert.match(payload.title, /^alpha: /);
    assert.match(payload.body, /npm publish/);
    const [held] = alpha.app.services.permissions.pending();
    assert.equal(payload.requestId, hubRequestId(instanceId, held!.id), 'the hub\'s id of the instance\'s request');
    const token = (p: typeof payload, action: string) => p.actions.find((a: { action: string }) => a.action === action).token as string;

    const decideUrl = (id: string) => `${manager.url}/api/permissions/${id}/decide-by-token`;
    const forged = await sendJson(decideUrl(payload.requestId), 'POST', { token: 'A'.repeat(43) });
    assert.deepEqual([forged.status, forged.body.error], [403, 'DECISION_TOKEN_INVALID']);
    assert.equal(alpha.app.services.permissions.get(held!.id)!.status, 'pending', 'a forged token decides nothing');

    const allowed = await sendJson(decideUrl(payload.requestId), 'POST', { token: token(payload, 'allow') });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.equal(allowed.body.request.status, 'allowed');
    assert.deepEqual(await answer, { allow: true }, 'the waiting call on the instance is allowed');
    const again = await sendJson(decideUrl(payload.requestId), 'POST', { token: token(payload, 'deny') });
    assert.equal(again.status, 409, 'decided once: the other action is refused');

    // the instance's resolution, relayed, replaces the notification
    const [, resolved] = await pushService.waitFor(2);
    assert.equal(resolved!.payload.kind, 'permission_resolved');
    assert.equal(resolved!.payload.tag, payload.tag);
    assert.equal(resolved!.topic, pushed!.topic);

    // pushed before the hub restarts, decided after: the new hub finds the request by asking its instances
    const second = hold(alpha, 'tr_hub_2', 'rm -rf build');
    const pushes = await pushService.waitFor(3);
    const before = pushes[2]!.payload;
    assert.match(before.body, /rm -rf build/);
    await manager.close({ removeHome: false });
    manager = await startManager({ home: manager.home });
    const denied = await sendJson(decideUrl(before.requestId), 'POST', { token: token(before, 'deny') });
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
    assert.equal(denied.body.request.status, 'denied');
    assert.deepEqual((await second).allow, false, 'the restarted hub\'s decision reached the instance');
  } finally {
    await manager.close();
    await alpha.close();
    await pushService.close();
  }
});
