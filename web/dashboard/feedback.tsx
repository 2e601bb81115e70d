// What the page tells and asks a person, from anywhere in it: toasts (errors and short confirmations,
// instead of alert()) and the one confirmation dialog (before an action that forgets something).
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ConfirmDialog, ToastList, type ToastItem } from '../ui/components.tsx';
import { messageOf } from './api.ts';

type Listener = () => void;

/** A tiny store: a value and the components that show it. */
function store<T>(initial: T) {
  let value = initial;
  const listeners = new Set<Listener>();
  return {
    get: () => value,
    set(next: T) {
      value = next;
      for (const l of listeners) l();
    },
    use(): T {
      const [, force] = useState(0);
      useEffect(() => {
        const l = () => force((n) => n + 1);
        listeners.add(l);
        return () => void listeners.delete(l);
      }, []);
      return value;
    },
  };
}

const toasts = store<ToastItem[]>([]);
let nextToast = 1;

/** Shows a toast; errors stay until dismissed (or 12 s), notices go after 4 s. */
export function toast(text: string, tone: ToastItem['tone'] = 'info'): void {
  const id = nextToast++;
  toasts.set([...toasts.get(), { id, text, tone }].slice(-4));
  setTimeout(() => dismiss(id), tone === 'error' ? 12_000 : 4000);
}

const dismiss = (id: number) => toasts.set(toasts.get().filter((t) => t.id !== id));

/** A toast for a failed action: what was being done, and why it failed. */
export const failed = (what: string) => (err: unknown) => toast(`${what}: ${messageOf(err)}`, 'error');

interface Ask {
  title: ComponentChildren;
  body?: ComponentChildren;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
  resolve: (yes: boolean) => void;
}

const asking = store<Ask | null>(null);

/** Asks before an action: resolves true when the person confirms, false when they decline. */
export function confirmAction(ask: Omit<Ask, 'resolve'>): Promise<boolean> {
  asking.get()?.resolve(false);
  return new Promise((resolve) => asking.set({ ...ask, resolve }));
}

/** The page's toasts and its confirmation dialog: rendered once, at the root. */
export function FeedbackHost() {
  const list = toasts.use();
  const ask = asking.use();
  const answer = (yes: boolean) => {
    ask?.resolve(yes);
    asking.set(null);
  };
  return (
    <>
      <ToastList toasts={list} onDismiss={dismiss} />
      <ConfirmDialog
        open={ask !== null}
        title={ask?.title ?? ''}
        confirmLabel={ask?.confirmLabel ?? 'OK'}
        cancelLabel={ask?.cancelLabel}
        danger={ask?.danger}
        onConfirm={() => answer(true)}
        onCancel={() => answer(false)}
      >
        {ask?.body}
      </ConfirmDialog>
    </>
  );
}
