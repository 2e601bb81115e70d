// Lingering close: when a server answers before it has read the whole request body (a 413, a 401
// from the guard, a GET that ignores its body) and then closes the connection, the client is still
// sending; closing the socket under unread data makes the kernel send a reset, and the client's
// TCP stack drops the answer it has not read yet (curl and proxies report "EPIPE" or "connection
// reset" instead of the status). So, as nginx and Apache do, the answer and a FIN go out, and the
// rest of the body is read and dropped before the socket closes, bounded in time and bytes.
import type { IncomingMessage } from 'node:http';

const LIMIT = { ms: 10_000, bytes: 64 * 1024 * 1024 };

const hasBody = (request: IncomingMessage) => request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

/** Makes the end of this request's connection wait for the rest of its body (only requests that have one). */
export function lingerOnClose(request: IncomingMessage): void {
  const socket = request.socket;
  // (an injected request's stand-in socket has nothing to linger on)
  if (!hasBody(request) || typeof socket?.destroySoon !== 'function') return;
  const destroySoon = socket.destroySoon.bind(socket);
  // Node calls destroySoon once an answer that closes the connection is written
  socket.destroySoon = () => {
    if (request.complete) return destroySoon();
    socket.end();
    let received = 0;
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(close, LIMIT.ms).unref();
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > LIMIT.bytes) close();
    });
    request.once('end', close);
    request.once('error', close);
    request.resume();
  };
}
