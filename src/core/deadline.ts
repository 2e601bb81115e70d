// Waiting on something for a bounded time: the work's answer, or `late()`'s error once `ms` have passed.
// The work is not stopped (a caller that can stop it does so on its own); what it gives after the
// deadline is dropped, a failure included.

export function deadline<T>(work: T | Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const lateness = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  const answer = Promise.resolve(work);
  answer.catch(() => undefined);
  return Promise.race([answer, lateness]).finally(() => clearTimeout(timer));
}
