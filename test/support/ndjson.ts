// A streaming NDJSON client over node:http: collects lines as they arrive.
import http from 'node:http';

export interface NdjsonStream {
  status: number;
  lines: any[];
  /** Resolves with every line once the response ends. */
  done: Promise<any[]>;
  waitFor(predicate: (line: any) => boolean, timeoutMs?: number): Promise<any>;
  abort(): void;
}

export function postNdjson(url: string, body: unknown): Promise<NdjsonStream> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (response) => {
      const lines: any[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) !== -1) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line) lines.push(JSON.parse(line));
        }
        waiters.forEach((w) => w());
      });
      const done = new Promise<any[]>((ok) => response.on('close', () => ok(lines)));
      resolve({
        status: response.statusCode ?? 0,
        lines,
        done,
        abort: () => request.destroy(),
        waitFor: (predicate, timeoutMs = 10_000) =>
          new Promise((ok, fail) => {
            const check = () => {
              const found = lines.find(predicate);
              if (found !== undefined) {
                waiters.delete(check);
                clearTimeout(timer);
                ok(found);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`timed out; lines so far: ${JSON.stringify(lines).slice(0, 500)}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          }),
      });
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
