// A TCP proxy for fault tests (this kernel has no `tc netem`): every chunk waits `delayMs` each way, in order, and
// cut() ends every connection through it at once, as a link going down does to the connections that cross it;
// setDown(true) keeps it down (every new connection is reset at once) until setDown(false); pause() holds every
// chunk, new connections accepted, as a stopped process's kernel does, until resume() lets them through in order.
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
  /** Holds every chunk both ways (connections are still accepted) until resume(). */
  pause(): void;
  resume(): void;
  /** What clients sent while paused, a string per chunk (latin1). */
  readonly held: readonly string[];
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, options: { delayMs?: number } = {}): Promise<TcpProxy> {
  let delayMs = options.delayMs ?? 0;
  const sockets = new Set<Socket>();
  let accepted = 0;
  let down = false;
  /** Resolved while the proxy is not paused. */
  let flowing = Promise.resolve();
  let resumeFlow: (() => void) | undefined;
  const held: string[] = [];
  /** Forwards `from` to `to`, each chunk `delayMs` later, in order (and after a pause). */
  const pipe = (from: Socket, to: Socket, fromClient: boolean) => {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      if (resumeFlow && fromClient) held.push(chunk.toString('latin1'));
      chain = chain
        .then(() => flowing)
        .then(() => (delayMs ? new Promise((r) => setTimeout(r, delayMs)) : undefined))
        .then(() => void (to.writable && to.write(chunk)));
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
    pipe(client, upstream, true);
    pipe(upstream, client, false);
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
    pause: () => {
      if (!resumeFlow) flowing = new Promise((resolve) => (resumeFlow = resolve));
    },
    resume: () => {
      resumeFlow?.();
      resumeFlow = undefined;
    },
    held,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
