// The offline engine's pure parts: its command lines, the transcript in pocketsphinx's output, which
// engine the settings pick.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeArgs, missingOfflineParts, parseHypothesis, recognizeArgs } from '../../../src/modules/voice/offline.ts';
import { engineOf, voiceSettings } from '../../../src/modules/voice/settings.ts';

test('ffmpeg decodes to 16 kHz mono 16-bit WAV; pocketsphinx gets the en-us model and no log', () => {
  const decode = decodeArgs('/t/in.webm', '/t/out.wav');
  assert.deepEqual(decode.slice(decode.indexOf('-i'), decode.indexOf('-i') + 2), ['-i', '/t/in.webm']);
  for (const [flag, value] of [['-ar', '16000'], ['-ac', '1'], ['-sample_fmt', 's16'], ['-f', 'wav']]) assert.equal(decode[decode.indexOf(flag!) + 1], value);
  assert.equal(decode.at(-1), '/t/out.wav');
  assert.ok(decode.includes('-nostdin'), 'ffmpeg never waits on the server\'s stdin');
  assert.deepEqual(recognizeArgs('/t/out.wav', '/m', ['-ds', '2']), ['-infile', '/t/out.wav', '-hmm', '/m/en-us', '-lm', '/m/en-us.lm.bin', '-dict', '/m/cmudict-en-us.dict', '-logfn', '/dev/null', '-ds', '2']);
});

test('the transcript is the utterances\' lines joined; none is no speech', () => {
  assert.equal(parseHypothesis('turn on the lights\n\nin the kitchen\n'), 'turn on the lights in the kitchen');
  assert.equal(parseHypothesis('\n \n'), '');
});

test('auto picks the endpoint when baseUrl is set, else offline; an explicit engine wins', () => {
  const d = voiceSettings.defaults;
  assert.equal(d.engine, 'auto');
  assert.equal(engineOf(d), 'offline');
  assert.equal(engineOf({ ...d, baseUrl: 'http://127.0.0.1:8080/v1' }), 'endpoint');
  assert.equal(engineOf({ ...d, engine: 'offline', baseUrl: 'http://127.0.0.1:8080/v1' }), 'offline');
  assert.equal(engineOf({ ...d, engine: 'endpoint' }), 'endpoint');
});

test('missing parts are named', () => {
  assert.deepEqual(missingOfflineParts({ ffmpeg: 'ffmpeg', pocketsphinx: '/nonexistent/ps', modelDir: '/nonexistent/model' }), ['/nonexistent/ps', 'the en-us model (/nonexistent/model)']);
  assert.deepEqual(missingOfflineParts({ ffmpeg: 'ffmpeg', pocketsphinx: 'pocketsphinx_continuous', modelDir: '/usr/share/pocketsphinx/model/en-us' }), []);
});
