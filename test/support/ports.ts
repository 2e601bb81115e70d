// Loopback ports for servers that must be started on a known port: one free port, or a run of
// consecutive ports held until each is handed to its server.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** A port nothing listens on right now (chosen by the kernel, so anything may take it before it is used). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface PortRange {
  /** The first port; the range is base … base + count - 1. */
  base: number;
  /** Closes the placeholder on `port` (for a server to listen there next) and returns the port. */
  release(port: number): Promise<number>;
  /** Closes the placeholders still held. */
  close(): Promise<void>;
}

/**
 * The lowest port the kernel hands out to outgoing connections and `listen(0)`. Ports below it are
 * taken only by a process that asks for that very port; ports inside it are taken all the time by
 * the connections of whatever else runs (on a loaded machine, often the one a test just probed).
 */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/** A listener on the port that drops whatever connects (a scan sees nothing there), or null if taken. */
function hold(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/**
 * `count` consecutive free loopback ports below the ephemeral range, each held by a placeholder
 * listener until `release`, so nothing can take one between the choice and its use. What remains is
 * the moment between a release and the server's own listen: there, only a process that binds this
 * exact port at that instant can take it (the kernel gives none of these ports to connections).
 */
export async function reservePorts(count: number): Promise<PortRange> {
  const top = ephemeralLow() - count;
  for (;;) {
    const base = 10_000 + Math.floor(Math.random() * (top - 10_000));
    const held: Server[] = [];
    for (let port = base; port < base + count; port++) {
      const server = await hold(port);
      if (!server) break;
      held.push(server);
    }
    if (held.length < count) {
      await Promise.all(held.map(closed));
      continue;
    }
    const placeholders = new Map(held.map((server, i) => [base + i, server]));
    return {
      base,
      async release(port) {
        const server = placeholders.get(port);
        if (!server) throw new Error(`port ${port} is not held by this range (${base}…${base + count - 1}), or was released already`);
        placeholders.delete(port);
        await closed(server);
        return port;
      },
      async close() {
        await Promise.all([...placeholders.values()].map(closed));
        placeholders.clear();
      },
    };
  }
}
