// Copying: a copy button, and a command shown as code with one (the command that installs a CLI,
// logs it in, or fixes a failed run).
import { useState } from 'preact/hooks';
import { copyText } from './clipboard.ts';
import { Icon } from './icons.tsx';

export function CopyButton({ text, label = 'Copy message' }: { text: () => string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="icon-btn small"
      aria-label={label}
      title={done ? 'Copied' : label}
      onClick={async () => {
        if (await copyText(text())) {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        }
      }}
    >
      <Icon name={done ? 'check' : 'copy'} size={15} />
    </button>
  );
}

/** A command to run in a terminal, as code, with a button that copies it. */
export function CommandChip({ command, label = 'Copy the command' }: { command: string; label?: string }) {
  return (
    <div class="cmd-chip">
      <code>{command}</code>
      <CopyButton text={() => command} label={label} />
    </div>
  );
}
