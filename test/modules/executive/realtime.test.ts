// Realtime voice, the server-side part: a WebRTC peer (werift) offers through POST voice/connect, the
// manager posts it to a local server speaking the OpenAI Realtime protocol (fake-realtime.ts) with its
// key, joins the call's server-side socket, configures the session (instructions, the executive's
// tools), runs the model's function calls on the executive itself and hands the results back; close
// hangs up; a server stop hangs up too. The key reaches only the endpoint: never a GET, the audit or a log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'werift';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { startFakeRealtime, type FakeCall } from '../../support/fake-realtime.ts';
import { startManager, until } from '../dashboard/helpers.ts';

const KEY = 'sk-realtime-secret-7f3a9c';

/** A browser-like peer: a microphone-like audio track and the `oai-events` data channel. */
async function offerer() {
  // max-bundle: one ICE transport (werift 0.25 leaves the socket of a bundled-away one open after close)
  const pc = new RTCPeerConnection({ iceUseIpv6: false, bundlePolicy: 'max-bundle' });
  pc.addTransceiver('audio', { direction: 'sendrecv' });
  const channel = pc.createDataChannel('oai-events');
  await pc.setLocalDescription(await pc.createOffer());
  return { pc, channel, sdp: pc.localDescription!.sdp };
}

test('voice/connect: the call goes through svc with its key, the tools run server-side, close hangs up', { timeout: 90_000 }, async (t) => {
  const logged: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    logged.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  t.after(() => {
    process.stderr.write = write;
  });
  const fake = await startFakeRealtime(KEY);
  t.after(() => fake.close());
  const instance = await startServer();
  t.after(() => instance.close());
  const manager = await startManager({ logLevel: 'info' });
  let managerOpen = true;
  t.after(() => (managerOpen ? manager.close() : undefined));
  const api = (path: string) => `${manager.url}/api/svc-ceo${path}`;
  const worker = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token, label: 'worker alpha' })).body.id as string;
  const peers: RTCPeerConnection[] = [];
  t.after(async () => {
    for (const pc of peers) await pc.close();
  });

  // not configured: a clear refusal naming what to set
  assert.deepEqual((await getJson(api('/state'))).body.voice.realtime, { configured: false, session: null });
  const first = await offerer();
  peers.push(first.pc);
  const unset = await sendJson(api('/voice/connect'), 'POST', { sdp: first.sdp });
  assert.equal(unset.status, 409);
  assert.equal(unset.body.error, 'REALTIME_NOT_CONFIGURED');
  assert.match(unset.body.message, /realtime\.baseUrl.*realtime\.apiKey/);

  // a wrong key: the endpoint refuses, svc says so without echoing any key
  await sendJson(api('/settings'), 'PUT', { realtime: { baseUrl: fake.baseUrl, apiKey: 'sk-wrong-key-000' } });
  const wrong = await sendJson(api('/voice/connect'), 'POST', { sdp: first.sdp });
  assert.deepEqual([wrong.status, wrong.body.error], [502, 'REALTIME_FAILED']);
  assert.match(wrong.body.message, /401/);
  assert.ok(!JSON.stringify(wrong.body).includes('sk-wrong-key-000'));

  const put = await sendJson(api('/settings'), 'PUT', { realtime: { apiKey: KEY } });
  assert.deepEqual(put.body.realtime, { baseUrl: fake.baseUrl, apiKey: '***', model: 'gpt-realtime', voice: 'marin' });
  assert.equal((await getJson(api('/state'))).body.voice.realtime.configured, true);

  // connect: svc answers the offer with the endpoint's SDP, and the two peers really connect
  const { pc, channel, sdp } = await offerer();
  peers.push(pc);
  const connected = await sendJson(api('/voice/connect'), 'POST', { sdp });
  assert.equal(connected.status, 201, JSON.stringify(connected.body));
  assert.match(connected.body.id, /^voice_/);
  assert.deepEqual([connected.body.model, connected.body.voice], ['gpt-realtime', 'marin']);
  assert.match(connected.body.sdp, /^v=0/);
  assert.ok(!JSON.stringify(connected.body).includes(KEY), 'the browser never gets the key');
  await pc.setRemoteDescription({ type: 'answer', sdp: connected.body.sdp });
  await until(() => (pc.connectionState === 'connected' && channel.readyState === 'open' ? true : undefined), 'the WebRTC connection and its data channel', 20_000);
  const call: FakeCall = fake.calls.at(-1)!;
  assert.deepEqual(call.session, { type: 'realtime', model: 'gpt-realtime', audio: { output: { voice: 'marin' } } });
  assert.equal(call.channels[0]?.label, 'oai-events');

  // the server-side socket: session.update with the instructions and the executive's tools
  const update = await fake.until(() => call.events.find((e) => e.type === 'session.update'), 'session.update');
  const session = update.session as { type: string; instructions: string; tools: Array<{ type: string; name: string; parameters: { type: string } }> };
  assert.equal(session.type, 'realtime');
  assert.match(session.instructions, /Korean or English/);
  assert.match(session.instructions, /untrusted-data/);
  const names = session.tools.map((tool) => tool.name);
  for (const name of ['list_instances', 'inspect_instance', 'send_message', 'list_pending', 'query', 'edit_docs', 'lifecycle']) assert.ok(names.includes(name), name);
  assert.ok(session.tools.every((tool) => tool.type === 'function' && tool.parameters.type === 'object'));
  assert.deepEqual((await getJson(api('/state'))).body.voice.realtime.session, { id: connected.body.id, model: 'gpt-realtime', voice: 'marin', startedAt: connected.body.startedAt });

  // the model calls a function: svc runs it on the executive and hands back the real result
  const listed = await fake.callFunction(call, 'list_instances', {});
  assert.match(listed, /^<untrusted-data>\n/);
  const instances = JSON.parse(listed.replace(/^<untrusted-data>\n|\n<\/untrusted-data>$/g, '')).instances;
  assert.deepEqual(instances.map((i: { id: string; label: string }) => [i.id, i.label]), [[worker, 'worker alpha']]);
  const audit = (await getJson(api('/audit?kind=tool'))).body.audit;
  assert.ok(audit.some((a: { action: string; ok: boolean }) => a.action === 'list_instances' && a.ok), 'the call is audited');
  // lifecycle still needs a person's confirmation; bad calls are refused, not run
  assert.match(await fake.callFunction(call, 'lifecycle', { action: 'stop', instanceId: worker }), /^Refused \(403 CONFIRMATION_REQUIRED\)/);
  assert.match(await fake.callFunction(call, 'rm_rf', {}), /^Refused: no tool rm_rf/);
  assert.match(await fake.callFunction(call, 'send_message', { instanceId: worker }), /^Refused: bad arguments for send_message: text/);
  // what the model says goes to the transcript
  fake.emit(call, { type: 'response.output_audio_transcript.done', transcript: '인스턴스 하나가 있습니다.' });
  await until(async () => ((await getJson(api('/state'))).body.transcript.some((e: { role: string; text: string }) => e.role === 'executive' && e.text === '인스턴스 하나가 있습니다.') ? true : undefined), 'the spoken answer in the transcript');

  // close: hangs up, leaves the socket; the session is gone
  const closed = await sendJson(api(`/voice/${connected.body.id}/close`), 'POST', {});
  assert.deepEqual([closed.status, closed.body], [200, { closed: true }]);
  assert.equal(call.hungUp, true);
  await fake.until(() => (call.sideband!.readyState === call.sideband!.CLOSED ? true : undefined), 'the socket closed');
  assert.equal((await getJson(api('/state'))).body.voice.realtime.session, null);
  assert.equal((await sendJson(api(`/voice/${connected.body.id}/close`), 'POST', {})).status, 404);

  // a server stop hangs up a live call
  const again = await offerer();
  peers.push(again.pc);
  assert.equal((await sendJson(api('/voice/connect'), 'POST', { sdp: again.sdp })).status, 201);
  const last = fake.calls.at(-1)!;
  await fake.until(() => (last.sideband ? true : undefined), 'the second call\'s socket');

  // the key: sent to the endpoint only, never in a GET, the audit or the server's log
  const gets = await Promise.all(['/settings', '/state', '/audit?limit=300'].map(async (p) => JSON.stringify((await getJson(api(p))).body)));
  for (const body of gets) assert.ok(!body.includes(KEY), body.slice(0, 200));
  managerOpen = false;
  await manager.close();
  assert.equal(last.hungUp, true, 'hung up on server stop');
  assert.ok(logged.join('').includes('/api/svc-ceo/voice/connect'), 'the log saw the requests');
  assert.ok(!logged.join('').includes(KEY), 'the key is not in the log');
  assert.ok(fake.authorizations.filter((a) => a.includes(KEY)).length >= 4, 'offers, sockets and hang-ups carried it');
});
