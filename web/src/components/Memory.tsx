// The memory panel: search memory (snippets with the matches highlighted), browse the files by kind, open
// and edit one (saved through the API), see the index's status and reindex with live progress. Everything
// it shows follows the `memory_status` events, so an edit made elsewhere (an editor, the agent) appears.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../api.ts';
import { closeMemory, lineOffsets, memoryApi, useMemoryOpen, type MemoryFile, type MemoryHit, type MemoryKind, type MemoryStatus } from '../memory.ts';
import { onLiveEvent } from '../store.ts';
import { Icon } from '../../ui/icons.tsx';
import { PanelDialog } from './PanelDialog.tsx';
import './memory.css';
import { count } from '../../ui/text.ts';

const KINDS: { value: MemoryKind | 'all'; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'profile', label: 'Profile' },
  { value: 'note', label: 'Notes' },
  { value: 'episode', label: 'Episodes' },
  { value: 'procedure', label: 'Procedures' },
];

/** Status reasons after which the lists are fetched again. */
const CHANGES = new Set(['save', 'delete', 'external', 'sync', 'reindex', 'summarize']);


/** Where the open file stands: a new one says so until it has content, then that it is not saved. */
function fileState(file: { isNew?: boolean; text: string; saved: string }): string {
  if (file.isNew) return file.text.trim() ? 'Not saved yet' : 'New file: write something to save it';
  return file.text === file.saved ? 'Saved' : 'Unsaved changes';
}

export function MemoryPanel() {
  return (
    <PanelDialog open={useMemoryOpen()} onClose={closeMemory} class="memory-panel" labelledBy="memory-title">
      {() => <MemoryBody />}
    </PanelDialog>
  );
}

/** A snippet with its marks as <mark> (plain text from the server: nothing is parsed as HTML). */
function Snippet({ hit }: { hit: MemoryHit }) {
  const parts: ComponentChildren[] = [];
  let at = 0;
  for (const [i, m] of hit.marks.entries()) {
    if (m.start > at) parts.push(hit.snippet.slice(at, m.start));
    parts.push(<mark key={i}>{hit.snippet.slice(m.start, m.end)}</mark>);
    at = m.end;
  }
  parts.push(hit.snippet.slice(at));
  return <span class="snippet">{parts}</span>;
}

function StatusLine({ status }: { status: MemoryStatus | null }) {
  if (!status) return <span class="memory-status muted">Loading…</span>;
  const { index } = status;
  const state = index.state === 'indexing' ? `indexing ${index.done}/${index.total} files` : index.state === 'pending' ? 'checking files…' : 'up to date';
  return (
    <span class="memory-status" data-state={index.state}>
      {count(status.files, 'file')} · {count(status.chunks, 'section')} · {state}
      {status.embeddings.state !== 'off' && ` · embeddings ${status.embeddings.state}`}
      {status.lastError && (
        <span class="memory-error" title={status.lastError}>
          {' '}
          · <Icon name="alert" size={13} /> {status.lastError}
        </span>
      )}
    </span>
  );
}

interface OpenFile {
  path: string;
  /** What the file holds on the server (the editor is dirty when it differs). */
  saved: string;
  text: string;
  /** Lines to select once shown (opened from a search hit). */
  lines?: [number, number];
  isNew?: boolean;
}

function MemoryBody() {
  const [status, setStatus] = useState<MemoryStatus | null>(null);
  const [kind, setKind] = useState<MemoryKind | 'all'>('all');
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<MemoryHit[] | null>(null);
  const [files, setFiles] = useState<MemoryFile[] | null>(null);
  const [file, setFile] = useState<OpenFile | null>(null);
  const [busy, setBusy] = useState<'saving' | 'reindexing' | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** What the last action did (toasts would sit under the modal dialog). */
  const [notice, setNotice] = useState<string | null>(null);
  const [changes, setChanges] = useState(0);
  const fileRef = useRef<OpenFile | null>(null);
  fileRef.current = file;
  const editor = useRef<HTMLTextAreaElement>(null);
  const filter = kind === 'all' ? undefined : kind;

  useEffect(() => {
    void memoryApi.status().then(setStatus, (err) => setError(errorText(err)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = onLiveEvent((ev) => {
      if (ev.event !== 'memory_status') return;
      setStatus(ev.status as MemoryStatus);
      if (!CHANGES.has(ev.reason as string)) return;
      // one refresh for a burst of changes
      clearTimeout(timer);
      timer = setTimeout(() => setChanges((n) => n + 1), 150);
      const open = fileRef.current;
      if (open && !open.isNew && open.text === open.saved && (ev.path === open.path || ev.path === undefined)) {
        void memoryApi.read(open.path).then(
          (read) => setFile((f) => (f && f.path === read.path && f.text === f.saved ? { ...f, saved: read.content, text: read.content } : f)),
          () => undefined,
        );
      }
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, []);

  useEffect(() => {
    let current = true;
    void memoryApi.list(filter).then(
      (list) => current && setFiles(list.files),
      (err) => current && setError(errorText(err)),
    );
    return () => {
      current = false;
    };
  }, [filter, changes]);

  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setHits(null);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      memoryApi.search(q, filter, controller.signal).then(
        (answer) => setHits(answer.hits),
        (err) => (err as Error).name !== 'AbortError' && setError(errorText(err)),
      );
    }, 120);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query, filter, changes]);

  // select the lines of a search hit once its file shows
  useLayoutEffect(() => {
    const area = editor.current;
    if (!file?.lines || !area) return;
    const [start, end] = lineOffsets(file.text, file.lines[0], file.lines[1]);
    area.focus();
    area.setSelectionRange(start, end);
    setFile((f) => (f ? { ...f, lines: undefined } : f));
  }, [file?.lines]);

  // a new file is worth keeping (or asking about) only once it has content
  const dirty = Boolean(file && (file.isNew ? file.text.trim() !== '' : file.text !== file.saved));
  const leave = () => !dirty || confirm('Discard the changes to this file?');

  const openPath = async (path: string, lines?: [number, number]) => {
    if (file?.path === path && !file.isNew) {
      if (lines) setFile({ ...file, lines });
      return;
    }
    if (!leave()) return;
    try {
      const read = await memoryApi.read(path);
      setError(null);
      setFile({ path: read.path, saved: read.content, text: read.content, lines });
    } catch (err) {
      setError(errorText(err));
    }
  };

  const save = async () => {
    if (!file) return;
    setBusy('saving');
    try {
      const saved = await memoryApi.save(file.path, file.text);
      setError(null);
      setFile({ path: saved.path, saved: file.text.endsWith('\n') ? file.text : `${file.text}\n`, text: file.text.endsWith('\n') ? file.text : `${file.text}\n` });
      setNotice(`Saved ${saved.path} (${count(saved.chunks, 'section')} indexed).`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  const reindex = async () => {
    setBusy('reindexing');
    try {
      const done = await memoryApi.reindex();
      setStatus(done.status);
      setNotice(`${done.joined ? 'Joined the running reindex: ' : 'Reindexed '}${count(done.files, 'file')} (${count(done.chunks, 'section')}) in ${(done.durationMs / 1000).toFixed(1)} s.`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  const indexing = status?.index.state === 'indexing' ? status.index : null;
  return (
    <div class="memory">
      <header class="memory-head">
        <h2 id="memory-title">Memory</h2>
        <StatusLine status={status} />
        <div class="memory-head-actions">
          <button type="button" class="btn small" onClick={() => void reindex()} disabled={busy === 'reindexing'}>
            <Icon name="retry" size={14} /> {busy === 'reindexing' ? 'Reindexing…' : 'Reindex'}
          </button>
          <button type="button" class="icon-btn" aria-label="Close memory" title="Close" onClick={() => leave() && closeMemory()}>
            <Icon name="x" />
          </button>
        </div>
      </header>
      {indexing ? (
        <progress class="memory-progress" max={Math.max(1, indexing.total)} value={indexing.done} aria-label={`Indexing: ${indexing.done} of ${indexing.total} files`} />
      ) : (
        // (a reindex asked for here shows from the click: its first progress event may be its last)
        busy === 'reindexing' && <progress class="memory-progress" aria-label="Indexing" />
      )}
      {error && (
        <p class="form-error memory-message" role="alert">
          {error}
        </p>
      )}
      <p class="muted memory-message" role="status" hidden={!notice}>
        {notice}
      </p>
      <div class="memory-main">
        <section class="memory-browse" aria-label="Memory files">
          <div class="search-box" role="search">
            <Icon name="search" size={16} class="search-icon" />
            <label class="sr-only" for="memory-search">
              Search memory
            </label>
            <input
              id="memory-search"
              type="search"
              placeholder="Search memory"
              value={query}
              autocomplete="off"
              onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
            />
          </div>
          <div class="memory-kinds" role="group" aria-label="Kind">
            {KINDS.map((k) => (
              <button key={k.value} type="button" class={`chip${kind === k.value ? ' on' : ''}`} aria-pressed={kind === k.value} onClick={() => setKind(k.value)}>
                {k.label}
                {status && k.value !== 'all' && <span class="chip-count">{status.filesByKind[k.value]}</span>}
              </button>
            ))}
          </div>
          {hits ? (
            <ul class="memory-list" aria-label="Search results">
              {hits.length === 0 && <li class="muted pad">Nothing in memory matches.</li>}
              {hits.map((h) => (
                <li key={`${h.path}:${h.startLine}`}>
                  <button type="button" class="memory-hit" data-path={h.path} onClick={() => void openPath(h.path, [h.startLine, h.endLine])}>
                    <span class="memory-hit-head">
                      <span class="memory-path">
                        {h.path}:{h.startLine}-{h.endLine}
                      </span>
                      <span class={`kind-badge ${h.kind}`}>{h.kind}</span>
                    </span>
                    {h.heading && <span class="memory-heading">{h.heading}</span>}
                    <Snippet hit={h} />
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <ul class="memory-list" aria-label="Files">
              {files?.length === 0 && <li class="muted pad">No files yet. Create one, or tell the agent something worth remembering.</li>}
              {files?.map((f) => (
                <li key={f.path}>
                  <button type="button" class={`memory-file${file?.path === f.path ? ' active' : ''}`} data-path={f.path} onClick={() => void openPath(f.path)}>
                    <span class="memory-path">{f.path}</span>
                    <span class={`kind-badge ${f.kind}`}>{f.kind}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <button
            type="button"
            class="btn small memory-new"
            onClick={() => leave() && setFile({ path: kind === 'all' || kind === 'note' ? 'notes/' : kind === 'profile' ? 'profile.md' : `${kind}s/`, saved: '', text: '', isNew: true })}
          >
            <Icon name="plus" size={14} /> New file
          </button>
        </section>
        <section class="memory-editor" aria-label={file ? `File ${file.path}` : 'File'}>
          {file ? (
            <form
              class="memory-form"
              onSubmit={(e) => {
                e.preventDefault();
                void save();
              }}
            >
              {file.isNew ? (
                <label class="field">
                  <span>Path (relative to the memory folder, ending in .md)</span>
                  <input id="memory-path" type="text" value={file.path} autocomplete="off" spellcheck={false} onInput={(e) => setFile({ ...file, path: (e.target as HTMLInputElement).value })} />
                </label>
              ) : (
                <h3 class="memory-file-title">{file.path}</h3>
              )}
              <label class="sr-only" for="memory-text">
                Content of {file.path}
              </label>
              <textarea
                id="memory-text"
                ref={editor}
                class="memory-text"
                value={file.text}
                spellcheck={false}
                onInput={(e) => setFile({ ...file, text: (e.target as HTMLTextAreaElement).value })}
                onKeyDown={(e) => {
                  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
                    e.preventDefault();
                    void save();
                  }
                }}
              />
              <div class="settings-actions">
                <span class="muted" data-testid="memory-file-state">{fileState(file)}</span>
                <button type="submit" class="btn primary" disabled={!dirty || busy === 'saving' || !file.text.trim()}>
                  {busy === 'saving' ? 'Saving…' : 'Save'}
                </button>
              </div>
            </form>
          ) : (
            <p class="muted pad">Open a file or a search result to read and edit it. The agent reads this memory before it answers.</p>
          )}
        </section>
      </div>
    </div>
  );
}
