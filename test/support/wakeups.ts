// What the local fake chat APIs (fake-telegram.ts, fake-discord.ts) wait on: sleepers that every new
// call or update wakes at once, for their long polls and for tests waiting until a call arrived.

export interface Wakeups {
  /** Wakes every sleeper. */
  wake(): void;
  /** Resolves at the next wake or after `ms`; `also` may hand `done` to other events (a closed request). */
  sleep(ms: number, also?: (done: () => void) => void): Promise<void>;
  /** Waits until `predicate(calls)` holds, failing after `timeoutMs` with the calls `describe`d. */
  waitFor<C>(calls: C[], predicate: (calls: C[]) => boolean, timeoutMs: number, describe: (call: C) => unknown): Promise<void>;
}

export function wakeups(): Wakeups {
  const sleepers = new Set<() => void>();
  const sleep = (ms: number, also?: (done: () => void) => void) =>
    new Promise<void>((resolve) => {
      const done = () => {
        sleepers.delete(done);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
      also?.(done);
    });
  return {
    wake: () => {
      for (const sleeper of [...sleepers]) sleeper();
    },
    sleep,
    async waitFor(calls, predicate, timeoutMs, describe) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(calls)) {
        if (Date.now() > deadline) throw new Error(`timed out; calls: ${JSON.stringify(calls.map(describe))}`);
        await sleep(100);
      }
    },
  };
}
