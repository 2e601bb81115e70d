// Giving up on a chat service that does not answer. A connect attempt is bounded in time and can be
// cancelled (a restart, the channel turned off, a shutdown): the caller hears at once either way, even
// from a bot library that ignores the signal, and the library's requests are cut with `linked`.

/** The attempt took longer than its bound (the service's own words say which API did not answer). */
export class AttemptTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no answer in ${ms / 1000} s`);
  }
}

/**
 * Runs `work` with a signal that aborts after `ms` or when `cancel` aborts, and settles as soon as that
 * happens: with AttemptTimeout, or with `cancel`'s reason. What `work` does later is not waited for.
 */
export async function bounded<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, cancel: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const { signal } = controller;
  const onCancel = () => controller.abort(cancel.reason);
  if (cancel.aborted) onCancel();
  else cancel.addEventListener('abort', onCancel, { once: true });
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(ms)), ms);
  const given = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  given.catch(() => undefined); // when `work` settles first, nobody listens to this one
  try {
    const running = work(signal);
    running.catch(() => undefined); // its failure after we gave up is nobody's concern
    return await Promise.race([running, given]);
  } finally {
    clearTimeout(timer);
    cancel.removeEventListener('abort', onCancel);
  }
}

/** What `linked` needs of a signal (grammY's comes from a polyfill, undici's and Node's are Node's). */
interface SignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A signal that aborts when either of two does (`first` may be a library's own, not Node's). `unlink`
 * drops the listeners, so a long-lived signal does not collect one per request.
 */
export function linked(first: SignalLike | null | undefined, second: AbortSignal): { signal: AbortSignal; unlink(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (first?.aborted || second.aborted) controller.abort();
  else {
    first?.addEventListener('abort', abort);
    second.addEventListener('abort', abort);
  }
  return {
    signal: controller.signal,
    unlink() {
      first?.removeEventListener('abort', abort);
      second.removeEventListener('abort', abort);
    },
  };
}
