// Lingering close: when a server answers before it has read the whole request body (a 413, a 401
// from the guard, a GET that ignores its body) and then closes the connection, the client is still
// sending; closing the socket under unread data makes the kernel send a reset, and the client's
// TCP stack drops the answer it has not read yet (curl and proxies report "EPIPE" or "connection
// reset" instead of the status). So, as nginx and Apache do, the answer and a FIN go out, and the
// rest of the body is read and dropped before the socket closes, bounded in time and bytes.
//
// A kept-alive socket outlives its requests (thousands of them on a browser's or an API client's
// connection), so nothing here may tie a request to its socket past the request's answer: the socket
// gets one destroySoon of its own, once, which reads the request it is answering from a slot that the
// answer's end empties.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const LIMIT = { ms: 10_000, bytes: 64 * 1024 * 1024 };

/** The request with a body that the socket is answering now; absent between requests. */
const ANSWERING = Symbol('svc.answering');

type LingeringSocket = Socket & { [ANSWERING]?: IncomingMessage | undefined };

const hasBody = (request: IncomingMessage) => request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

/** Makes the end of this request's connection wait for the rest of its body (only requests that have one). */
export function lingerOnClose(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket as LingeringSocket | null;
  // (an injected request's stand-in socket has nothing to linger on)
  if (!hasBody(request) || typeof socket?.destroySoon !== 'function') return;
  if (!(ANSWERING in socket)) lingerOnDestroySoon(socket);
  socket[ANSWERING] = request;
  // 'close' comes after Node's own end of the answer, which calls destroySoon when the connection closes
  response.once('close', () => {
    if (socket[ANSWERING] === request) socket[ANSWERING] = undefined;
  });
}

function lingerOnDestroySoon(socket: LingeringSocket): void {
  const destroySoon = socket.destroySoon;
  // Node calls destroySoon once an answer that closes the connection is written
  socket.destroySoon = function lingeringDestroySoon(this: LingeringSocket) {
    const request = socket[ANSWERING];
    socket[ANSWERING] = undefined;
    if (!request || request.complete) return destroySoon.call(socket);
    drainThenDestroy(socket, request);
  };
  socket[ANSWERING] = undefined;
}

function drainThenDestroy(socket: Socket, request: IncomingMessage): void {
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
}
