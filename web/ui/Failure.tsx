// A failed action as a person reads it: what failed (the title), why (the text), and the one command
// that fixes it, with a copy button (the same record the chat shows for a failed run).
import type { ComponentChildren } from 'preact';
import { CommandChip } from './Copy.tsx';
import { Icon } from './icons.tsx';

export function FailureCard(props: { title: ComponentChildren; children: ComponentChildren; fix?: string; actions?: ComponentChildren; class?: string }) {
  return (
    <div class={`ui-failure${props.class ? ` ${props.class}` : ''}`} role="alert">
      <p class="ui-failure-title">
        <Icon name="alert" size={16} /> <span>{props.title}</span>
      </p>
      <div class="ui-failure-text">{props.children}</div>
      {props.fix && (
        <div class="ui-failure-fix">
          <span>To fix it, run in a terminal:</span>
          <CommandChip command={props.fix} label="Copy the command that fixes it" />
        </div>
      )}
      {props.actions && <div class="ui-failure-actions">{props.actions}</div>}
    </div>
  );
}
