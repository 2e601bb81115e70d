// A TCP proxy for fault tests (this kernel has no `tc netem`): every chunk waits `delayMs` each way, in order, and
// cut() ends every connection through it at once, as a link going down does to the connections that cross it;
// setDown(true) keeps it down (every new connection is reset at once) until setDown(false).
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Ends every connection now (the clients see them reset); new ones are accepted. */
  cut(): void;
  /** Down: cuts every connection, and resets each new one at once, until set up again. */
  setDown(down: boolean): void;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, options: { delayMs?: number } = {}): Promise<TcpProxy> {
  let delayMs = options.delayMs ?? 0;
  const sockets = new Set<Socket>();
  let accepted = 0;
  let down = false;
  /** Forwards `from` to `to`, each chunk `delayMs` later, in order. */
  const pipe = (from: Socket, to: Socket) => {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      chain = chain.then(() => (delayMs ? new Promise((r) => setTimeout(r, delayMs)) : undefined)).then(() => void (to.writable && to.write(chunk)));
    });
    from.on('end', () => void chain.then(() => to.end()));
  };
  const server: Server = createServer((client) => {
    if (down) return void client.resetAndDestroy();
    accepted++;
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (client.destroy(), upstream.destroy()));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  const cut = () => {
    for (const s of sockets) s.resetAndDestroy();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get accepted() {
      return accepted;
    },
    cut,
    setDown: (value) => {
      down = value;
      if (down) cut();
    },
    setDelay: (ms) => void (delayMs = ms),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
