// Sessions (create, switch, rename, delete) and message search across all sessions.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { deleteSession, MAX_TITLE, newChat, openSearchResult, renameSession, search, switchSession } from '../actions.ts';
import type { ChatSession } from '../api.ts';
import { sanitizeSnippet } from '../markdown.ts';
import { setState, useStore } from '../store.ts';
import { Icon } from '../../ui/icons.tsx';
import { openMemory } from '../memory.ts';
import { openSkills } from '../skills.ts';
import { openMcp } from '../mcp.ts';

function relative(ts: number): string {
  const diff = Date.now() - ts;
  if (diff < 60_000) return 'just now';
  if (diff < 3_600_000) return `${Math.floor(diff / 60_000)} min ago`;
  if (diff < 86_400_000) return `${Math.floor(diff / 3_600_000)} h ago`;
  return new Date(ts).toLocaleDateString();
}

type RowMode = { id: string; kind: 'rename' | 'confirm' } | null;

/** The title of a session as an input: Enter or leaving it saves, Escape cancels. */
function TitleEditor({ session, onClose }: { session: ChatSession; onClose: (refocus: boolean) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const closed = useRef(false);
  useLayoutEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const close = (save: boolean, refocus: boolean) => {
    if (closed.current) return;
    closed.current = true;
    // an empty title is not sent: the old one stays
    if (save) void renameSession(session.id, input.current?.value ?? '');
    onClose(refocus);
  };
  const id = `rename-${session.id}`;
  return (
    <div class="session-edit">
      <label class="sr-only" for={id}>
        Chat title
      </label>
      <input
        ref={input}
        id={id}
        type="text"
        class="session-title-input"
        defaultValue={session.title}
        maxLength={MAX_TITLE}
        autocomplete="off"
        spellcheck={false}
        enterKeyHint="done"
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.isComposing) {
            e.preventDefault();
            close(true, true);
          } else if (e.key === 'Escape') {
            // (not also closing the drawer in a narrow window)
            e.preventDefault();
            e.stopPropagation();
            close(false, true);
          }
        }}
        onBlur={() => close(true, false)}
      />
      <span class="session-time">{relative(session.updatedAt)}</span>
    </div>
  );
}

/** "Delete this chat?" inside the row. Cancel has the focus: Enter right after the click keeps the chat. */
function DeleteConfirm({ session, onClose }: { session: ChatSession; onClose: (deleted: boolean) => void }) {
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  useLayoutEffect(() => cancel.current?.focus(), []);
  const id = `delete-q-${session.id}`;
  return (
    <div
      class="session-confirm"
      role="group"
      aria-labelledby={id}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          if (!busy) onClose(false);
        }
      }}
    >
      <span id={id} class="session-confirm-text">
        Delete this chat?
      </span>
      <button
        type="button"
        class="btn small danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          const deleted = await deleteSession(session.id);
          if (!deleted) setBusy(false);
          onClose(deleted);
        }}
      >
        Delete
      </button>
      <button type="button" class="btn small" ref={cancel} disabled={busy} onClick={() => onClose(false)}>
        Cancel
      </button>
    </div>
  );
}

export function Sidebar() {
  const sessions = useStore((s) => s.sessions);
  const activeId = useStore((s) => s.activeId);
  const found = useStore((s) => s.search);
  const open = useStore((s) => s.sidebarOpen);
  const titles = new Map(sessions.map((s) => [s.id, s.title]));
  // one row at a time is renamed or asks to confirm a deletion (none once its session is gone)
  const [rowMode, setMode] = useState<RowMode>(null);
  const mode = rowMode && sessions.some((x) => x.id === rowMode.id) ? rowMode : null;
  // where the keyboard focus goes once the row has re-rendered (a selector)
  const refocus = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (!refocus.current) return;
    const target = document.querySelector<HTMLElement>(refocus.current);
    refocus.current = null;
    // only when the focus was in the row that changed (now removed: the focus is on the body)
    const lost = !document.activeElement || document.activeElement === document.body;
    if (target && lost) target.focus();
  });
  const closeRow = (focusTo: string | null) => {
    refocus.current = focusTo;
    setMode(null);
  };
  /** The row to focus when this one is gone: the next one, else the one before. */
  const neighbour = (id: string) => {
    const index = sessions.findIndex((x) => x.id === id);
    const next = sessions[index + 1] ?? sessions[index - 1];
    return next ? `.sessions .session[data-session-id="${CSS.escape(next.id)}"]` : '.new-chat';
  };

  return (
    <>
      <div class={`scrim${open ? ' show' : ''}`} onClick={() => setState({ sidebarOpen: false })} aria-hidden="true" />
      <nav class={`sidebar${open ? ' open' : ''}`} aria-label="Sessions and search">
        <div class="sidebar-top">
          <span class="brand">
            <img src="favicon.svg" alt="" width={22} height={22} />
            svc
          </span>
          <button type="button" class="btn new-chat" onClick={() => void newChat()}>
            <Icon name="plus" size={16} /> New chat
          </button>
        </div>
        <div class="search-box" role="search">
          <Icon name="search" size={16} class="search-icon" />
          <label class="sr-only" for="search-input">
            Search messages
          </label>
          <input
            id="search-input"
            type="search"
            placeholder="Search messages  (Ctrl+K)"
            value={found.query}
            onInput={(e) => search((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') search('');
            }}
            autocomplete="off"
          />
        </div>
        {found.query.trim() ? (
          <section class="search-results" aria-label="Search results" aria-busy={found.loading}>
            {found.error && <p class="muted pad">{found.error}</p>}
            {!found.loading && !found.error && found.results.length === 0 && <p class="muted pad">No messages match.</p>}
            <ul>
              {found.results.map((r) => (
                <li key={r.id}>
                  <button type="button" class="result" data-message-id={r.id} onClick={() => void openSearchResult(r.sessionId, r.id)}>
                    <span class="result-meta">
                      {r.role} · {titles.get(r.sessionId) ?? 'session'} · {relative(r.createdAt)}
                    </span>
                    {/* the snippet is escaped by the server; only <mark> survives sanitizing */}
                    <span class="snippet" dangerouslySetInnerHTML={{ __html: sanitizeSnippet(r.snippet) }} />
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ) : (
          <section class="sessions" aria-label="Sessions">
            <ul>
              {sessions.map((s) => {
                const kind = mode?.id === s.id ? mode.kind : null;
                const active = s.id === activeId;
                const own = (what: string) => `.session-row [data-${what}="${CSS.escape(s.id)}"]`;
                // (worked out while the row is still in the list)
                const after = kind === 'confirm' ? neighbour(s.id) : null;
                return (
                  <li key={s.id} data-row={s.id} class={`session-row${active ? ' active' : ''}${kind ? ` ${kind}` : ''}`}>
                    {kind === 'rename' ? (
                      <TitleEditor session={s} onClose={(back) => closeRow(back ? own('rename') : null)} />
                    ) : (
                      <button
                        type="button"
                        class={`session${active ? ' active' : ''}`}
                        aria-current={active ? 'page' : undefined}
                        data-session-id={s.id}
                        // named by its title alone; the time is its description
                        aria-labelledby={`session-title-${s.id}`}
                        aria-describedby={`session-time-${s.id}`}
                        onClick={() => void switchSession(s.id)}
                      >
                        <span class="session-title" id={`session-title-${s.id}`}>
                          {s.title}
                        </span>
                        <span class="session-time" id={`session-time-${s.id}`}>
                          {relative(s.updatedAt)}
                        </span>
                      </button>
                    )}
                    {kind === null && (
                      <div class="session-actions">
                        <button
                          type="button"
                          class="icon-btn small"
                          data-rename={s.id}
                          aria-label={`Rename "${s.title}"`}
                          title="Rename chat"
                          onClick={() => setMode({ id: s.id, kind: 'rename' })}
                        >
                          <Icon name="pencil" size={15} />
                        </button>
                        <button
                          type="button"
                          class="icon-btn small delete"
                          data-delete={s.id}
                          aria-label={`Delete "${s.title}"`}
                          title="Delete chat"
                          onClick={() => setMode({ id: s.id, kind: 'confirm' })}
                        >
                          <Icon name="trash" size={15} />
                        </button>
                      </div>
                    )}
                    {kind === 'confirm' && (
                      <DeleteConfirm session={s} onClose={(deleted) => closeRow(deleted ? after : own('delete'))} />
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        )}
        <div class="sidebar-foot">
          <button type="button" class="btn ghost" onClick={() => setState({ page: 'settings', sidebarOpen: false })}>
            <Icon name="settings" size={16} /> Settings
          </button>
          <button type="button" class="btn ghost" onClick={openMemory}>
            <Icon name="file" size={16} /> Memory
          </button>
          <button type="button" class="btn ghost" onClick={openSkills}>
            <Icon name="command" size={16} /> Skills
          </button>
          <button type="button" class="btn ghost" onClick={openMcp}>
            <Icon name="tool" size={16} /> MCP servers
          </button>
        </div>
      </nav>
    </>
  );
}
