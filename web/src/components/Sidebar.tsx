// Sessions (create, switch) and message search across all sessions.
import { newChat, openSearchResult, search, switchSession } from '../actions.ts';
import { sanitizeSnippet } from '../markdown.ts';
import { setState, useStore } from '../store.ts';
import { Icon } from './icons.tsx';

function relative(ts: number): string {
  const diff = Date.now() - ts;
  if (diff < 60_000) return 'just now';
  if (diff < 3_600_000) return `${Math.floor(diff / 60_000)} min ago`;
  if (diff < 86_400_000) return `${Math.floor(diff / 3_600_000)} h ago`;
  return new Date(ts).toLocaleDateString();
}

export function Sidebar() {
  const sessions = useStore((s) => s.sessions);
  const activeId = useStore((s) => s.activeId);
  const found = useStore((s) => s.search);
  const open = useStore((s) => s.sidebarOpen);
  const titles = new Map(sessions.map((s) => [s.id, s.title]));

  return (
    <>
      <div class={`scrim${open ? ' show' : ''}`} onClick={() => setState({ sidebarOpen: false })} aria-hidden="true" />
      <nav class={`sidebar${open ? ' open' : ''}`} aria-label="Sessions and search">
        <div class="sidebar-top">
          <span class="brand">
            <img src="/favicon.svg" alt="" width={22} height={22} />
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
              {sessions.map((s) => (
                <li key={s.id}>
                  <button
                    type="button"
                    class={`session${s.id === activeId ? ' active' : ''}`}
                    aria-current={s.id === activeId ? 'page' : undefined}
                    data-session-id={s.id}
                    onClick={() => void switchSession(s.id)}
                  >
                    <span class="session-title">{s.title}</span>
                    <span class="session-time">{relative(s.updatedAt)}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}
        <div class="sidebar-foot">
          <button type="button" class="btn ghost" onClick={() => setState({ page: 'settings', sidebarOpen: false })}>
            <Icon name="settings" size={16} /> Settings
          </button>
        </div>
      </nav>
    </>
  );
}
