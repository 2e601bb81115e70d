// Web Push end to end: a real server pushes to a push service on loopback that checks the VAPID JWT
// and decrypts the RFC 8291 body as a browser does. A permission request becomes a notification whose
// Allow token decides the request once; the subscription routes refuse what svc cannot send to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakePushService } from '../../support/fake-push-service.ts';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { EventBus } from '../../../src/events/bus.ts';
import { SecurityAudit } from '../../../src/modules/security-audit/index.ts';
import { PermissionsRepo, PermissionsService } from '../../../src/modules/permissions/index.ts';
import { PushRepo, PushService, pushSender, pushSettings, loadOrCreateVapidKeys } from '../../../src/modules/push/index.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = { sessionId: 'ses_push', runId: 'tr_push', provider: 'claude' };
const bash = (command: string) => ({ tool: 'Bash', input: { command } });

/** A PushService on an in-memory database, sending to a fake push service; `close()` ends all of it. */
async function pushRig(overrides: Partial<ConstructorParameters<typeof PushService>[0]> = {}) {
  const pushService = await startFakePushService();
  const home = mkdtempSync(join(tmpdir(), 'svc-push-'));
  const db = openDatabase(':memory:');
  const bus = new EventBus();
  const audit = new SecurityAudit(db);
  const permissions = new PermissionsService({ repo: new PermissionsRepo(db), bus, audit, timeoutMs: () => 60_000 });
  const vapid = loadOrCreateVapidKeys(join(home, 'push-vapid.json'));
  const push = new PushService({
    repo: new PushRepo(db),
    bus,
    audit,
    permissions,
    settings: () => pushSettings.defaults,
    vapidPublicKey: () => vapid.publicKey,
    send: pushSender(() => vapid, () => 'mailto:test@example.org'),
    ...overrides,
  });
  push.start();
  return {
    pushService,
    bus,
    permissions,
    push,
    async close() {
      await push.close();
      permissions.close();
      db.close();
      rmSync(home, { recursive: true, force: true });
      await pushService.close();
    },
  };
}

test('a permission request is pushed encrypted and VAPID-signed; its Allow token decides it once', async () => {
  const pushService = await startFakePushService();
  const server = await startServer();
  try {
    const browser = pushService.subscribe();
    const added = await sendJson(`${server.url}/api/push/subscriptions`, 'POST', browser.subscription);
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const { body: key } = await getJson(`${server.url}/api/push/vapid-public-key`);

    const answer = server.app.services.permissions.ask(run, bash('npm publish'));
    const [push] = await pushService.waitFor(1);
    assert.deepEqual(pushService.refused, []);
    assert.equal(push!.vapidKey, key.publicKey, 'signed with the key browsers subscribe with');
    assert.equal(push!.claims.aud, pushService.url);
    assert.equal(push!.urgency, 'high');
    assert.ok(push!.ttl > 0 && push!.ttl <= 600, `TTL ${push!.ttl}: until the request expires`);
    const payload = push!.payload;
    assert.equal(payload.kind, 'permission');
    assert.equal(payload.sessionId, run.sessionId);
    assert.match(payload.body, /npm publish/);
    const id = payload.requestId as string;
    const token = (action: string) => payload.actions.find((a: { action: string }) => a.action === action).token as string;

    const decideUrl = `${server.url}/api/permissions/${id}/decide-by-token`;
    const wrongRequest = await sendJson(`${server.url}/api/permissions/perm_other/decide-by-token`, 'POST', { token: token('allow') });
    assert.equal(wrongRequest.status, 403, 'a token is bound to its request');
    assert.equal(wrongRequest.body.error, 'DECISION_TOKEN_INVALID');

    const allowed = await sendJson(decideUrl, 'POST', { token: token('allow') });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.equal(allowed.body.request.status, 'allowed');
    assert.equal(allowed.body.request.decidedBy, 'push');
    assert.deepEqual(await answer, { allow: true });

    const again = await sendJson(decideUrl, 'POST', { token: token('allow') });
    assert.equal(again.status, 403, 'used once');
    assert.equal(again.body.error, 'DECISION_TOKEN_INVALID');
    const other = await sendJson(decideUrl, 'POST', { token: token('deny') });
    assert.equal(other.status, 409, 'the other decision, once decided');
    assert.equal(other.body.error, 'ALREADY_DECIDED');

    // the notification on the device is replaced by the outcome (same tag, same topic)
    const [, resolved] = await pushService.waitFor(2);
    assert.equal(resolved!.payload.kind, 'permission_resolved');
    assert.equal(resolved!.payload.tag, payload.tag);
    assert.equal(resolved!.topic, push!.topic);
    assert.equal(resolved!.payload.actions, undefined);

    const audit = await getJson(`${server.url}/api/security-audit/entries?limit=100`);
    const decided = JSON.stringify(audit.body);
    assert.match(decided, /push:push_/, 'the decision is audited with the device as actor');
    assert.doesNotMatch(decided, new RegExp(token('allow')), 'no token in the audit log');
  } finally {
    await server.close();
    await pushService.close();
  }
});

test('an expired decision token is refused; a subscription its push service says is gone is removed', async () => {
  let now = Date.now();
  const rig = await pushRig({ now: () => now });
  const { pushService, permissions, push } = rig;
  try {
    const browser = pushService.subscribe();
    const { id: subscriptionId } = push.subscribe(browser.subscription, 'Mozilla/5.0 (Linux; Android 14) Chrome/130.0', 'test');
    void permissions.ask(run, bash('make deploy'));
    const [received] = await pushService.waitFor(1);
    const { requestId, actions } = received!.payload;
    now += 61_000;
    await assert.rejects(push.decideByToken(requestId, actions[0].token, 'test'), (err: any) => err.code === 'DECISION_TOKEN_INVALID');
    assert.equal(permissions.get(requestId)!.status, 'pending', 'an expired token decides nothing');

    now = Date.now();
    pushService.gone(browser);
    void permissions.ask(run, bash('make release'));
    await push.idle();
    assert.equal(push.list().length, 0, `subscription ${subscriptionId} answered 410 and is removed`);
  } finally {
    await rig.close();
  }
});

test('subscriptions: 201 with an id, listed without keys, deleted once; http off loopback and bad keys are 400', async () => {
  const pushService = await startFakePushService();
  const server = await startServer();
  try {
    const { subscription } = pushService.subscribe();
    const added = await sendJson(`${server.url}/api/push/subscriptions`, 'POST', subscription);
    assert.equal(added.status, 201);
    const again = await sendJson(`${server.url}/api/push/subscriptions`, 'POST', subscription);
    assert.equal(again.body.id, added.body.id, 'the same endpoint keeps its id');
    const listed = await getJson(`${server.url}/api/push/subscriptions`);
    assert.equal(listed.body.subscriptions.length, 1);
    assert.equal(listed.body.subscriptions[0].endpoint, subscription.endpoint);
    assert.equal(listed.body.subscriptions[0].keys, undefined, 'keys are never given out');

    const lan = await sendJson(`${server.url}/api/push/subscriptions`, 'POST', { ...subscription, endpoint: 'http://192.168.1.20/push/x' });
    assert.equal(lan.status, 400);
    assert.equal(lan.body.error, 'INVALID_URL');
    const https = await sendJson(`${server.url}/api/push/subscriptions`, 'POST', { ...subscription, endpoint: 'https://push.example.org/abc' });
    assert.equal(https.status, 201, 'any https endpoint');
    const badPoint = await sendJson(`${server.url}/api/push/subscriptions`, 'POST', { ...subscription, keys: { ...subscription.keys, p256dh: Buffer.alloc(65, 4).toString('base64url') } });
    assert.equal(badPoint.status, 400);
    const badAuth = await sendJson(`${server.url}/api/push/subscriptions`, 'POST', { ...subscription, keys: { ...subscription.keys, auth: 'AAAA' } });
    assert.equal(badAuth.status, 400);

    const removed = await getJson(`${server.url}/api/push/subscriptions/${added.body.id}`, { method: 'DELETE' });
    assert.equal(removed.status, 200);
    const gone = await getJson(`${server.url}/api/push/subscriptions/${added.body.id}`, { method: 'DELETE' });
    assert.equal(gone.status, 404);
  } finally {
    await server.close();
    await pushService.close();
  }
});

test('goals done and workers that need attention notify only when their setting is on', async () => {
  let settings = { ...pushSettings.defaults };
  const rig = await pushRig({ settings: () => settings, goalObjective: () => 'Ship the release' });
  const { pushService, bus, push } = rig;
  try {
    push.subscribe(pushService.subscribe().subscription, undefined, 'test');
    bus.publish('goal_done', { goalId: 'goal_1', sessionId: 'ses_1' });
    bus.publish('worker_stalled', { runId: 'wr_1', sessionId: 'ses_1', reason: 'no output for 5 minutes' });
    await push.idle();
    assert.equal(pushService.received.length, 0, 'off by default');
    settings = { ...settings, onGoalDone: true, onWorkerAttention: true };
    bus.publish('goal_done', { goalId: 'goal_1', sessionId: 'ses_1' });
    bus.publish('worker_stalled', { runId: 'wr_1', sessionId: 'ses_1', reason: 'no output for 5 minutes' });
    const [goal, worker] = await pushService.waitFor(2);
    assert.deepEqual([goal!.payload.kind, goal!.payload.body, goal!.payload.sessionId], ['goal_done', 'Ship the release', 'ses_1']);
    assert.deepEqual([worker!.payload.kind, worker!.payload.title], ['worker_attention', 'A worker stalled']);
    assert.ok(goal!.ttl > 0, 'a TTL is set');
  } finally {
    await rig.close();
  }
});
