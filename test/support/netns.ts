// Machines for tests: a network namespace joined to this one by a veth pair on 198.18.<n>.0/24 (this side .1,
// the namespace's .2). A link can be cut and restored (`ip link set … down/up`); everything is removed with
// the namespace. Needs root and iproute2; `netnsUnavailable()` says why not when it cannot run.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** Why namespaces cannot be made here, or false. */
export function netnsUnavailable(): string | false {
  const probe = `svc-probe-${process.pid}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return false;
  } catch (err) {
    return `network namespaces are not available (root and iproute2 are needed): ${(err as Error).message.split('\n')[0]}`;
  }
}

export interface Namespace {
  name: string;
  /** This side's address on the link. */
  hostAddress: string;
  /** The namespace's address. */
  address: string;
  down(): void;
  up(): void;
  /** Runs a command inside the namespace (stdout and stderr collected by the caller). */
  spawn(command: string, args: string[], env?: NodeJS.ProcessEnv): ChildProcess;
  remove(): void;
}

/** A free /24 of 198.18.0.0/16 (one no route uses yet). */
function freeSubnet(): number {
  const routes = ip('route', 'show');
  for (let tries = 0; tries < 200; tries++) {
    const n = 1 + Math.floor(Math.random() * 250);
    if (!routes.includes(`198.18.${n}.`)) return n;
  }
  throw new Error('no free 198.18.x.0/24 subnet');
}

export function makeNamespace(): Namespace {
  const n = freeSubnet();
  const name = `svc-t${process.pid}-${n}`;
  const outside = `vh${process.pid % 100000}x${n}`.slice(0, 15);
  const inside = `vn${process.pid % 100000}x${n}`.slice(0, 15);
  const hostAddress = `198.18.${n}.1`;
  const address = `198.18.${n}.2`;
  ip('netns', 'add', name);
  try {
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    ip('addr', 'add', `${hostAddress}/24`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('-n', name, 'addr', 'add', `${address}/24`, 'dev', inside);
    ip('-n', name, 'link', 'set', inside, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (err) {
    ip('netns', 'del', name);
    throw err;
  }
  return {
    name,
    hostAddress,
    address,
    down: () => void ip('link', 'set', outside, 'down'),
    up: () => void ip('link', 'set', outside, 'up'),
    spawn: (command, args, env) => spawn('ip', ['netns', 'exec', name, command, ...args], { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] }),
    remove: () => {
      try {
        ip('netns', 'del', name); // its end of the pair goes with it, and so does ours
      } catch {
        // already gone
      }
    },
  };
}
