// The one reading of a request's path. Every part of a server (the guard, the router, the proxy, the
// handlers) sees the path this function gives, decided once before routing: a path with more than
// one spelling of the same meaning is refused instead of normalized, so no part can read it one way
// while another reads it another way (the class of bug where `/%61pi/settings` skipped the token
// check because the guard read the raw string and the router its decoded form). Pure.

export type CanonicalTarget =
  | {
      ok: true;
      /** The request target to route: the canonical path and the query as it came. */
      url: string;
      /** The canonical path alone (percent-encoded where it must be, nowhere else). */
      path: string;
    }
  | { ok: false; message: string };

/** Characters a path segment may carry as they are (RFC 3986 pchar): never percent-encoded in the canonical form. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const LITERAL_IN_SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;

const refuse = (message: string): CanonicalTarget => ({ ok: false, message });

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A segment's text in the canonical spelling: pchar as it is, everything else as UTF-8 %XX (upper case). */
export function encodeSegment(text: string): string {
  let out = '';
  for (const char of text) {
    if (LITERAL_IN_SEGMENT.test(char)) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Decodes one raw segment, refusing what has another spelling: a percent-encoded unreserved
 * character, an encoded `/` or `\`, a control character, invalid or overlong UTF-8.
 */
function decodeSegment(raw: string): { ok: true; text: string } | { ok: false; message: string } {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char !== '%') {
      if (!LITERAL_IN_SEGMENT.test(char)) {
        return { ok: false, message: `the path has a character that must be percent-encoded (${describe(char)})` };
      }
      bytes.push(char.charCodeAt(0));
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { ok: false, message: 'the path has a malformed percent-encoding (% must be followed by two hex digits)' };
    const byte = parseInt(hex, 16);
    const decoded = String.fromCharCode(byte);
    if (byte < 0x80 && UNRESERVED.test(decoded)) return { ok: false, message: `the path percent-encodes '${decoded}', which is written as it is` };
    if (decoded === '/' || decoded === '\\') return { ok: false, message: 'the path has an encoded separator (%2F or %5C)' };
    bytes.push(byte);
    i += 2;
  }
  let text: string;
  try {
    text = utf8.decode(Uint8Array.from(bytes));
  } catch {
    return { ok: false, message: 'the path is not valid UTF-8 once decoded (an overlong or broken sequence)' };
  }
  // C0, DEL and C1 controls, NUL among them: no route's path holds one
  if (/[\u0000-\u001F\u007F-\u009F]/.test(text)) return { ok: false, message: 'the path has a control character (NUL, a line break, …)' };
  return { ok: true, text };
}

const describe = (char: string) => {
  const code = char.codePointAt(0)!;
  return code < 0x21 || code === 0x7f || code > 0x7e ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `'${char}'`;
};

/**
 * The canonical form of a request target (`req.url`: the path and the query), or why it has none.
 * Refused: anything but an absolute path (`*`, absolute-form URLs), a `#`, dot segments, empty
 * segments (a trailing slash excepted: `/a/` is its own path), backslashes and the decoding faults of
 * decodeSegment. Accepted paths are re-spelled with upper-case hex and no needless encoding.
 */
export function canonicalTarget(target: string): CanonicalTarget {
  if (!target.startsWith('/')) return refuse('the request target must be a path starting with / (not a full URL or *)');
  const q = target.indexOf('?');
  const rawPath = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? '' : target.slice(q);
  if (query.includes('#')) return refuse("the query has a '#' (a fragment is never sent to a server)");
  const segments = rawPath.slice(1).split('/');
  const canonical: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const raw = segments[i]!;
    if (raw === '') {
      if (i === segments.length - 1) {
        canonical.push('');
        continue;
      }
      return refuse('the path has an empty segment (//)');
    }
    if (raw === '.' || raw === '..') return refuse(`the path has a dot segment (${raw})`);
    const decoded = decodeSegment(raw);
    if (!decoded.ok) return refuse(decoded.message);
    canonical.push(encodeSegment(decoded.text));
  }
  const path = `/${canonical.join('/')}`;
  return { ok: true, path, url: path + query };
}
