// Sends again after a channel's "too many requests", waiting as long as it says (retry_after), within
// bounds: a few attempts, at most 30 s a wait and 60 s in all, then the error goes to the caller.
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimited } from './adapter.ts';

export interface RetryLimits {
  attempts: number;
  maxWaitMs: number;
  totalWaitMs: number;
}

export const DEFAULT_RETRY: RetryLimits = { attempts: 4, maxWaitMs: 30_000, totalWaitMs: 60_000 };

export async function withRetryAfter<T>(send: () => Promise<T>, limits: RetryLimits = DEFAULT_RETRY): Promise<T> {
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (!(err instanceof RateLimited) || attempt >= limits.attempts) throw err;
      const wait = Math.min(err.retryAfterMs, limits.maxWaitMs);
      if (waited + wait > limits.totalWaitMs) throw err;
      waited += wait;
      await sleep(wait);
    }
  }
}
