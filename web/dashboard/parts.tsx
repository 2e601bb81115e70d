// Small pieces several cards share: a time that reads relative and shows the full date on hover, an
// instance's status badge, and the errors of a form (the field a 400 names, or the form as a whole).
import { useState } from 'preact/hooks';
import { Badge, type Tone } from '../ui/components.tsx';
import { ApiError, messageOf, type Instance } from './api.ts';
import { dateTime, iso, relative } from './format.ts';

/** A time: relative ("5 min ago"), or the clock time ("14:03:12"); the full date on hover. */
export function Time({ at, clock }: { at: number; clock?: boolean }) {
  return (
    <time dateTime={iso(at)} title={dateTime(at, true)}>
      {clock ? new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : relative(at)}
    </time>
  );
}

const STATUS_TONE: Record<Instance['status'], Tone> = { online: 'ok', offline: 'neutral', error: 'danger' };

/** online / offline / error, with the reason as its tooltip. */
export function StatusBadge({ instance }: { instance: Instance }) {
  return (
    <span class="status" data-status={instance.status}>
      <Badge tone={STATUS_TONE[instance.status]} title={instance.reason}>
        {instance.status}
      </Badge>
    </span>
  );
}

/** The errors of one form: under the field the server named, or for the form as a whole. */
export function useFormErrors<F extends string>(fields: readonly F[]) {
  const [errors, setErrors] = useState<Partial<Record<F | 'form', string>>>({});
  return {
    errors,
    /** Clears them (before a new try). */
    clear: () => setErrors({}),
    set: (field: F | 'form', message: string) => setErrors((e) => ({ ...e, [field]: message })),
    /** Shows a failed call: a 400 naming one of this form's fields goes under it, anything else on the form. */
    show(err: unknown, fieldOf: (name: string) => F | undefined = (name) => (fields as readonly string[]).includes(name) ? (name as F) : undefined) {
      const field = err instanceof ApiError && err.field ? fieldOf(err.field) : undefined;
      // under its field, the message need not name the field again ("body field 'title': …")
      const message = field ? messageOf(err).replace(/^(body|query|params) field '[^']*': /, '') : messageOf(err);
      setErrors({ [field ?? 'form']: message } as Partial<Record<F | 'form', string>>);
    },
  };
}

/** An error of a whole form, announced. */
export function FormError({ message }: { message?: string }) {
  return message ? (
    <p class="form-error" role="alert">
      {message}
    </p>
  ) : null;
}
