// The one reading of a request path (src/http/canonical-path.ts): each spelling that means the same
// as another is refused, what is accepted is a fixed point, and decoding it means what the raw path
// meant. Table cases for each refusal, properties (fast-check, seeded) for the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalTarget, encodeSegment } from '../../src/http/canonical-path.ts';

const SEED = Number(process.env.SVC_FUZZ_SEED) || 20261126;

const accepted = (target: string) => {
  const result = canonicalTarget(target);
  assert.ok(result.ok, `${target} was refused: ${result.ok ? '' : result.message}`);
  return result;
};
const refusal = (target: string) => {
  const result = canonicalTarget(target);
  assert.ok(!result.ok, `${target} was accepted as ${result.ok ? result.url : ''}`);
  return result.message;
};

test('plain paths pass as they are, with their query untouched', () => {
  for (const target of ['/', '/api/settings', '/api/messages?limit=2&q=%00%2F..', '/i/inst_a/', '/assets/app-X1.js', "/a/b!$&'()*+,;=:@~-._/c"]) {
    assert.equal(accepted(target).url, target);
  }
  assert.equal(accepted('/api/settings?').url, '/api/settings?', 'an empty query stays');
  assert.equal(accepted('/a/b?x=1').path, '/a/b');
});

test('what must be encoded stays encoded, in upper-case hex; needless encodings of reserved characters are undone', () => {
  assert.equal(accepted('/media/a%20b.png').url, '/media/a%20b.png');
  assert.equal(accepted('/media/h%c3%a9.png').url, '/media/h%C3%A9.png', 'hex case is one spelling');
  assert.equal(accepted('/x/%E2%9C%93').url, '/x/%E2%9C%93');
  assert.equal(accepted('/x/%25').url, '/x/%25', 'a literal percent');
  assert.equal(accepted('/x/a%3Ab%40c').url, '/x/a:b@c', 'sub-delimiters and : @ are written as they are');
  assert.equal(accepted('/x/%3F%23').url, '/x/%3F%23', '? and # inside a segment stay encoded');
});

test('refused: encoded unreserved characters (letters, digits, - . _ ~), in any hex case', () => {
  for (const target of ['/%61pi/settings', '/api/%73ettings', '/%41PI', '/api/auth/%74oken', '/x/%2D', '/x/%5f', '/x/%7E', '/x/%31']) {
    assert.match(refusal(target), /percent-encodes/, target);
  }
});

test('refused: encoded separators, dot segments, empty segments, backslashes', () => {
  for (const target of ['/api%2Fsettings', '/api%2fsettings', '/a%5Cb', '/a%5cb']) assert.match(refusal(target), /encoded separator/, target);
  for (const target of ['/api/../settings', '/api/./settings', '/..', '/.', '/a/..', '/a/.']) assert.match(refusal(target), /dot segment/, target);
  for (const target of ['/%2e%2e/x', '/%2E/x', '/.%2e/x']) assert.match(refusal(target), /percent-encodes '\.'/, target);
  for (const target of ['//api/settings', '/api//settings', '//', '/a//']) assert.match(refusal(target), /empty segment/, target);
  assert.match(refusal('/api\\settings'), /must be percent-encoded \('\\'\)/);
});

test('refused: NUL and other controls, broken, overlong or surrogate UTF-8, malformed escapes', () => {
  for (const target of ['/a%00b', '/a%0Ab', '/a%0d', '/a%7F', '/a%C2%85']) assert.match(refusal(target), /control character/, target);
  for (const target of ['/a%C0%AF', '/a%E0%80%AF', '/a%FF', '/a%C3', '/a%ED%A0%80', '/a%F4%90%80%80']) assert.match(refusal(target), /UTF-8/, target);
  for (const target of ['/a%', '/a%4', '/a%ZZ', '/a%%41']) assert.match(refusal(target), /malformed percent-encoding/, target);
});

test('refused: targets that are not a path, raw characters that must be encoded, a fragment', () => {
  for (const target of ['*', 'http://127.0.0.1/api/settings', '', 'api/settings']) assert.match(refusal(target), /starting with \//, target);
  for (const target of ['/api/settings#x', '/a b', '/a"b', '/a<b', '/a|b', '/a{b}', '/a[1]', '/h\u00e9', '/a\u0000b', '/a`b', '/a^b']) {
    assert.match(refusal(target), /must be percent-encoded/, JSON.stringify(target));
  }
  assert.match(refusal('/a?b#c'), /fragment/);
});

// what a path segment can mean: any text but controls, separators and the dot segments
const segmentText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => !/[\u0000-\u001F\u007F-\u009F/\\]/.test(s) && s !== '.' && s !== '..');
const paths = fc.array(segmentText, { minLength: 1, maxLength: 5 });

test('property: a path of encoded segments is accepted unchanged, and decodes to its segments', () => {
  fc.assert(
    fc.property(paths, (segments) => {
      const target = `/${segments.map(encodeSegment).join('/')}`;
      const result = canonicalTarget(target);
      assert.ok(result.ok, target);
      assert.equal(result.url, target);
      assert.deepEqual(result.path.slice(1).split('/').map(decodeURIComponent), segments);
    }),
    { seed: SEED, numRuns: 500 },
  );
});

test('property: the canonical form is a fixed point, and means what the raw path meant', () => {
  // raw spellings: a segment's characters each written as they are or percent-encoded, any hex case
  const spelled = (text: string) =>
    fc.array(fc.constantFrom('raw', 'upper', 'lower'), { minLength: [...text].length, maxLength: [...text].length }).map((ways) =>
      [...text]
        .map((char, i) => {
          const encoded = encodeURIComponent(char);
          if (ways[i] === 'raw' || encoded === char) return encodeSegment(char);
          const hex = [...Buffer.from(char, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
          return ways[i] === 'upper' ? hex.toUpperCase() : hex;
        })
        .join(''),
    );
  fc.assert(
    fc.property(paths.chain((segments) => fc.tuple(fc.constant(segments), fc.tuple(...segments.map(spelled)))), ([segments, raw]) => {
      const result = canonicalTarget(`/${raw.join('/')}`);
      if (!result.ok) {
        // the only refusals of such a spelling: an unreserved character written encoded
        assert.match(result.message, /percent-encodes/);
        return;
      }
      const again = canonicalTarget(result.url);
      assert.ok(again.ok && again.url === result.url, `${result.url} is not a fixed point`);
      assert.deepEqual(result.path.slice(1).split('/').map(decodeURIComponent), segments);
    }),
    { seed: SEED, numRuns: 500 },
  );
});

test('property: encoding any unreserved character of an accepted path makes it refused', () => {
  const unreservedPath = fc.array(fc.stringMatching(/^[A-Za-z0-9\-._~]{1,8}$/).filter((s) => s !== '.' && s !== '..'), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(unreservedPath, fc.nat(), (segments, pick) => {
      const target = `/${segments.join('/')}`;
      const positions = [...target].flatMap((char, i) => (char === '/' ? [] : [i]));
      const at = positions[pick % positions.length]!;
      const encoded = `${target.slice(0, at)}%${target.charCodeAt(at).toString(16)}${target.slice(at + 1)}`;
      assert.ok(!canonicalTarget(encoded).ok, encoded);
    }),
    { seed: SEED, numRuns: 300 },
  );
});
