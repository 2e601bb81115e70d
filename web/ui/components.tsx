// The design system's components, shared by the chat UI and the manager dashboard: buttons, labelled
// fields (label, help and error wired to the control for screen readers), badges, cards, empty
// states, a confirmation dialog and the toast list. Presentational: each app keeps its own state.
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { Icon } from './icons.tsx';

type ButtonVariant = 'secondary' | 'primary' | 'danger' | 'danger-outline' | 'ghost';

export function Button(props: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; small?: boolean }) {
  const { variant = 'secondary', small, class: extra, type = 'button', ...rest } = props;
  const classes = ['btn', variant === 'secondary' ? '' : variant, small ? 'small' : '', typeof extra === 'string' ? extra : ''].filter(Boolean).join(' ');
  return <button type={type} class={classes} {...rest} />;
}

/** A button that shows only an icon: its label is its accessible name and its tooltip. */
export function IconButton(props: ButtonHTMLAttributes<HTMLButtonElement> & { icon: string; label: string; small?: boolean }) {
  const { icon, label, small, class: extra, ...rest } = props;
  return (
    <button type="button" class={`icon-btn${small ? ' small' : ''}${typeof extra === 'string' ? ` ${extra}` : ''}`} aria-label={label} title={label} {...rest}>
      <Icon name={icon} size={small ? 15 : 18} />
    </button>
  );
}

/** What a field's control needs to be described by its help and error. */
export interface FieldControl {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: 'true';
  class: string;
}

/**
 * A labelled control with its help text and its error under it. `children` renders the control
 * with the attributes that tie it to the label, the help and the error.
 */
export function Field(props: { id: string; label: ComponentChildren; help?: ComponentChildren; error?: string | null; class?: string; children: (control: FieldControl) => ComponentChildren }) {
  const described = [props.help ? `${props.id}-help` : '', props.error ? `${props.id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={`ui-field${props.class ? ` ${props.class}` : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children({ id: props.id, class: 'control', ...(described ? { 'aria-describedby': described } : {}), ...(props.error ? { 'aria-invalid': 'true' as const } : {}) })}
      {props.help && <small id={`${props.id}-help`}>{props.help}</small>}
      {props.error && (
        <small id={`${props.id}-error`} class="field-error" role="alert">
          {props.error}
        </small>
      )}
    </div>
  );
}

/** A checkbox with its label beside it and its help under it. */
export function Checkbox(props: { id: string; label: ComponentChildren; help?: ComponentChildren; checked: boolean; disabled?: boolean; onChange: (checked: boolean) => void }) {
  return (
    <div class="ui-check">
      <input id={props.id} type="checkbox" checked={props.checked} disabled={props.disabled} aria-describedby={props.help ? `${props.id}-help` : undefined} onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)} />
      <label for={props.id}>{props.label}</label>
      {props.help && <small id={`${props.id}-help`}>{props.help}</small>}
    </div>
  );
}

export type Tone = 'neutral' | 'ok' | 'warn' | 'danger' | 'accent';

export function Badge(props: { tone?: Tone; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge${props.tone && props.tone !== 'neutral' ? ` ${props.tone}` : ''}`} title={props.title}>
      {props.children}
    </span>
  );
}

/** A titled box of a page, with actions beside its title. */
export function Card(props: { title?: ComponentChildren; titleId?: string; actions?: ComponentChildren; class?: string; label?: string; children: ComponentChildren }) {
  return (
    <section class={`card${props.class ? ` ${props.class}` : ''}`} aria-labelledby={props.title ? props.titleId : undefined} aria-label={props.title ? undefined : props.label}>
      {(props.title || props.actions) && (
        <div class="card-head">
          {props.title && <h2 id={props.titleId}>{props.title}</h2>}
          {props.actions && <div class="card-actions">{props.actions}</div>}
        </div>
      )}
      {props.children}
    </section>
  );
}

/** What a list shows when it has nothing: what that means, and what to do. */
export function EmptyState(props: { title: ComponentChildren; children?: ComponentChildren }) {
  return (
    <div class="empty-state" role="status">
      <strong>{props.title}</strong>
      {props.children}
    </div>
  );
}

/**
 * Asks before an action that cannot be undone (or that does more than its button says): a modal
 * dialog naming what will happen. Escape and Cancel decline; Cancel has the focus, so Enter alone
 * never confirms by accident.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: ComponentChildren;
  children?: ComponentChildren;
  confirmLabel: string;
  /** The button that declines (default Cancel: say "Keep it" where Cancel would be ambiguous). */
  cancelLabel?: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) {
      dialog.showModal();
      cancel.current?.focus();
    }
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      class="ui-dialog"
      aria-labelledby="ui-confirm-title"
      // Escape: the state closes it (the effect above), so the page never runs ahead of the state. Left to the
      // browser, it closes at once but says so by a `close` event queued for later: a key pressed meanwhile
      // (Enter on what opened it) found the dialog still open in the state and was lost.
      onCancel={(event) => {
        event.preventDefault();
        if (props.open) props.onCancel();
      }}
      // closed some other way (or where the browser does not let a page keep it open): the state follows,
      // unless it is open again by now and this `close` is an old one
      onClose={() => {
        if (props.open && !ref.current?.open) props.onCancel();
      }}
    >
      {props.open && (
        <div class="ui-dialog-body">
          <h2 id="ui-confirm-title">{props.title}</h2>
          {props.children}
          <div class="ui-dialog-actions">
            <button ref={cancel} type="button" class="btn" onClick={props.onCancel}>
              {props.cancelLabel ?? 'Cancel'}
            </button>
            <Button variant={props.danger ? 'danger' : 'primary'} onClick={props.onConfirm}>
              {props.confirmLabel}
            </Button>
          </div>
        </div>
      )}
    </dialog>
  );
}

export interface ToastItem {
  id: number;
  text: string;
  tone: 'error' | 'info';
}

/** The toasts of a page, newest last, each dismissable; announced politely. */
export function ToastList(props: { toasts: readonly ToastItem[]; onDismiss: (id: number) => void }) {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {props.toasts.map((t) => (
        <div key={t.id} class={`toast ${t.tone}`}>
          <span>{t.text}</span>
          <IconButton icon="x" label="Dismiss" small onClick={() => props.onDismiss(t.id)} />
        </div>
      ))}
    </div>
  );
}
