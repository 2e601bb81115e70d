// The message box: Enter sends, Shift+Enter breaks the line; `/` opens command completion.
// While a run is active: a Stop button, the queue length, and a box to steer the run.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { sendMessage, steer, stop } from '../actions.ts';
import { toast, useStore } from '../store.ts';
import { api, ApiError, type CommandInfo } from '../api.ts';
import type { AttachmentRef } from '../attachments.ts';
import { formatSize, MAX_ATTACHMENTS, UPLOAD_LIMIT_BYTES } from '../../../src/protocol/media-limits.ts';
import type { ComponentChildren } from 'preact';
import { Icon } from '../../ui/icons.tsx';
import { MicButton } from './MicButton.tsx';

const MAX_HEIGHT_VH = 0.4;

/** A file picked, pasted or dropped into the box: uploaded at once, attached when the message is sent. */
interface Pending {
  key: number;
  name: string;
  size: number;
  state: 'uploading' | 'ready' | 'failed';
  ref?: AttachmentRef;
  error?: string;
}

let pendingSeq = 0;

/** The files of the box: upload on add, remove, and what a send attaches. */
function useAttachments() {
  const [files, setFiles] = useState<Pending[]>([]);
  const patch = (key: number, change: Partial<Pending>) => setFiles((list) => list.map((f) => (f.key === key ? { ...f, ...change } : f)));
  const add = (picked: Iterable<File>) => {
    let count = files.length;
    for (const file of picked) {
      if (count++ >= MAX_ATTACHMENTS) {
        toast(`At most ${MAX_ATTACHMENTS} files per message.`);
        return;
      }
      const key = ++pendingSeq;
      const item: Pending = { key, name: file.name || 'pasted file', size: file.size, state: 'uploading' };
      if (file.size > UPLOAD_LIMIT_BYTES) {
        item.state = 'failed';
        item.error = `larger than the ${formatSize(UPLOAD_LIMIT_BYTES)} limit`;
      }
      setFiles((list) => [...list, item]);
      if (item.state === 'failed') continue;
      api
        .upload(file)
        .then((up) => patch(key, { state: 'ready', ref: { filename: up.filename, type: file.type || 'application/octet-stream', size: formatSize(up.size) } }))
        .catch((err: unknown) => patch(key, { state: 'failed', error: err instanceof ApiError ? err.message : 'the upload failed' }));
    }
  };
  const remove = (key: number) => setFiles((list) => list.filter((f) => f.key !== key));
  const ready = files.filter((f) => f.state === 'ready').map((f) => f.ref!);
  return { files, add, remove, ready, uploading: files.some((f) => f.state === 'uploading'), clear: () => setFiles([]) };
}

export function Composer({ onSent, above }: { onSent?: () => void; above?: ComponentChildren }) {
  const [text, setText] = useState('');
  const [steerText, setSteerText] = useState('');
  const [pick, setPick] = useState(0);
  const [dismissed, setDismissed] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const attachments = useAttachments();
  const [dragging, setDragging] = useState(false);
  const active = useStore((s) => s.queue.active || s.activeTraceId !== null);
  const pending = useStore((s) => s.queue.pending);
  const commands = useStore((s) => s.commands);
  const ready = useStore((s) => s.ready);
  const sessionId = useStore((s) => s.view.sessionId);

  // autosize
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, window.innerHeight * MAX_HEIGHT_VH)}px`;
  }, [text]);

  // focus the box when the session changes (and at start)
  useEffect(() => {
    // (never taking the focus from another field the user is in)
    const current = document.activeElement;
    const free = !current || current === document.body || current.closest('.vl-scroller');
    if (ready && free && matchMedia('(pointer: fine)').matches) area.current?.focus();
  }, [ready, sessionId]);

  const matches = useMemo<CommandInfo[]>(() => {
    if (!commands || !text.startsWith('/') || /\s/.test(text) || text === dismissed) return [];
    const q = text.slice(1).toLowerCase();
    return commands.filter((c) => c.name.replace(/^\//, '').toLowerCase().startsWith(q)).slice(0, 8);
  }, [commands, text, dismissed]);
  const open = matches.length > 0;
  const current = Math.min(pick, Math.max(0, matches.length - 1));

  const complete = (command: CommandInfo) => {
    setText(`/${command.name.replace(/^\//, '')} `);
    setPick(0);
    area.current?.focus();
  };

  const canSend = (text.trim() !== '' || attachments.ready.length > 0) && !attachments.uploading;
  const submit = () => {
    if (!canSend) return;
    const value = text.trim();
    setText('');
    setPick(0);
    void sendMessage(value, attachments.ready);
    attachments.clear();
    onSent?.();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (open) {
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        setPick((current + 1) % matches.length);
        return;
      }
      if (e.key === 'ArrowUp') {
        e.preventDefault();
        setPick((current - 1 + matches.length) % matches.length);
        return;
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
        const chosen = matches[current]!;
        // Enter on an exact, complete command sends it; otherwise it completes
        if (!(e.key === 'Enter' && text.slice(1) === chosen.name.replace(/^\//, ''))) {
          e.preventDefault();
          complete(chosen);
          return;
        }
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(text);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  const sendSteer = async (e: Event) => {
    e.preventDefault();
    const value = steerText.trim();
    if (!value) return;
    setSteerText('');
    await steer(value);
  };

  return (
    <div class="composer-wrap">
      {above}
      {active && (
        <form class="steer" onSubmit={sendSteer} aria-label="Steer the running agent">
          <Icon name="steer" size={16} class="steer-icon" />
          <label class="sr-only" for="steer-input">
            Steer the running agent
          </label>
          <input
            id="steer-input"
            type="text"
            placeholder="Steer this run: tell the agent what to do instead…"
            value={steerText}
            onInput={(e) => setSteerText((e.target as HTMLInputElement).value)}
            autocomplete="off"
          />
          <button type="submit" class="btn small" disabled={!steerText.trim()}>
            Steer
          </button>
        </form>
      )}
      <div
        class="composer"
        data-active={active}
        data-dragging={dragging || undefined}
        onDragOver={(e) => {
          if (!e.dataTransfer?.types.includes('Files')) return;
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          setDragging(false);
          if (!e.dataTransfer?.files.length) return;
          e.preventDefault();
          attachments.add(e.dataTransfer.files);
        }}
      >
        {attachments.files.length > 0 && (
          <ul class="pending-files" aria-label="Files to attach">
            {attachments.files.map((f) => (
              <li key={f.key} class="pending-file" data-state={f.state} title={f.error}>
                {f.state === 'uploading' ? <span class="spinner" aria-label="uploading" /> : <Icon name={f.state === 'failed' ? 'alert' : 'file'} size={14} />}
                <span class="attachment-name">{f.name}</span>
                <span class="muted">{f.state === 'failed' ? f.error : formatSize(f.size)}</span>
                <button type="button" class="icon-btn small" aria-label={`Remove ${f.name}`} onClick={() => attachments.remove(f.key)}>
                  <Icon name="x" size={13} />
                </button>
              </li>
            ))}
          </ul>
        )}
        {open && (
          <ul class="autocomplete" role="listbox" id="command-list" aria-label="Commands">
            {matches.map((c, i) => (
              <li
                key={c.name}
                id={`cmd-${i}`}
                role="option"
                aria-selected={i === current}
                class={i === current ? 'selected' : ''}
                onMouseDown={(e) => {
                  e.preventDefault();
                  complete(c);
                }}
              >
                <span class="cmd-name">/{c.name.replace(/^\//, '')}</span>
                <span class="cmd-usage">{(c.usage ?? '').replace(/^\/?\S+\s*/, '')}</span>
                {c.description && <span class="cmd-desc">{c.description}</span>}
              </li>
            ))}
          </ul>
        )}
        <label class="sr-only" for="composer-input">
          Message
        </label>
        <textarea
          id="composer-input"
          ref={area}
          rows={1}
          value={text}
          placeholder={active ? 'Queue a message…' : 'Message the agent…'}
          onInput={(e) => {
            setText((e.target as HTMLTextAreaElement).value);
            setPick(0);
          }}
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            if (!e.clipboardData?.files.length) return;
            e.preventDefault();
            attachments.add(e.clipboardData.files);
          }}
          aria-controls="command-list"
          aria-autocomplete="list"
          aria-activedescendant={open ? `cmd-${current}` : undefined}
          enterkeyhint="send"
        />
        <div class="composer-actions">
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            id="attach-input"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              if (input.files) attachments.add(input.files);
              input.value = '';
            }}
          />
          <button type="button" class="icon-btn attach-btn" aria-label="Attach files" title="Attach files (or paste, or drop them here)" onClick={() => picker.current?.click()}>
            <Icon name="paperclip" size={18} />
          </button>
          <MicButton
            onText={(spoken) => {
              setText((before) => (before.trim() ? `${before.trimEnd()} ${spoken}` : spoken));
              area.current?.focus();
            }}
          />
          {(pending > 0 || active) && (
            <span class="queue-chip" role="status" aria-live="polite">
              {pending > 0 ? `${pending} queued` : 'Running'}
            </span>
          )}
          {active && (
            <button type="button" class="icon-btn stop-btn" aria-label="Stop the agent" title="Stop" onClick={() => void stop()}>
              <Icon name="stop" size={18} />
            </button>
          )}
          <button
            type="button"
            class="icon-btn send-btn"
            aria-label={active ? 'Queue message' : 'Send message'}
            title={active ? 'Queue (Enter)' : 'Send (Enter)'}
            disabled={!canSend}
            onClick={submit}
          >
            <Icon name="send" size={18} />
          </button>
        </div>
      </div>
      <p class="hint">
        <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line · <kbd>/</kbd> for commands
      </p>
    </div>
  );
}
