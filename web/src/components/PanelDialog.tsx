// A side panel (memory, skills) as a modal <dialog> that follows its open flag (web/src/panel.ts):
// shown with showModal() so focus and Escape work as they do for any dialog, and its body is
// rendered only while open, so a closed panel fetches nothing.
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

export function PanelDialog(props: { open: boolean; onClose: () => void; class: string; labelledBy: string; children: () => ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class={props.class} aria-labelledby={props.labelledBy} onClose={props.onClose}>
      {props.open && props.children()}
    </dialog>
  );
}
