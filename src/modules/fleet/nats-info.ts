// The first thing a NATS server sends on a connection: `INFO {json} \r\n`. Read by the hub to know its own server
// (its server_name) and by a join to see that TLS follows (tls_required) before it reads the certificate.
import type { Socket } from 'node:net';

/** Calls `done` once with the INFO line's fields (undefined when the first line is not one), then stops reading. */
export function onInfo(socket: Socket, done: (info: Record<string, unknown> | undefined) => void): void {
  let head = '';
  const onData = (chunk: Buffer) => {
    head += chunk.toString('latin1');
    if (!head.includes('\r\n')) return;
    socket.off('data', onData);
    const json = /^INFO\s+(\{.*\})\s*\r\n/.exec(head)?.[1];
    try {
      done(json ? (JSON.parse(json) as Record<string, unknown>) : undefined);
    } catch {
      done(undefined);
    }
  };
  socket.on('data', onData);
}
