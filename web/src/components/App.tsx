// The page: sidebar (sessions, search), header (agent picker, status, theme), the conversation
// and the composer; or the settings page. Keyboard: Ctrl/Cmd+K search, Ctrl/Cmd+Shift+O new chat,
// Escape closes what is open.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { jumpToLatest, loadNewer, loadOlder, newChat, pollCliStatus, reconnect } from '../actions.ts';
import { setToken } from '../api.ts';
import { getState, setState, useStore, type Row, type Theme } from '../store.ts';
import { Composer } from './Composer.tsx';
import { Icon } from '../../ui/icons.tsx';
import { ToastList } from '../../ui/components.tsx';
import { CommandChip } from '../../ui/Copy.tsx';
import { MemoryPanel } from './Memory.tsx';
import { PhaseStepper } from './Orchestration.tsx';
import { GoalBanner } from './Goal.tsx';
import { SkillsPanel } from './Skills.tsx';
import { ReviewPanel } from './Review.tsx';
import { McpPanel } from './Mcp.tsx';
import { ProviderPicker } from './ProviderPicker.tsx';
import { blocked, missingTitle, readinessOf, SetupHelp, type ReadinessState } from './Readiness.tsx';
import { estimateRow, renderRow } from './Rows.tsx';
import { Settings } from './Settings.tsx';
import { Sidebar } from './Sidebar.tsx';
import { VirtualList } from './VirtualList.tsx';
import { copyText } from '../../ui/clipboard.ts';

const keyOf = (row: Row) => row.key;

function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
  try {
    localStorage.setItem('svc.theme', theme);
  } catch {
    // ignore
  }
}

function ThemeButton() {
  const theme = useStore((s) => s.theme);
  const next: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' };
  const label = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' }[theme];
  return (
    <button
      type="button"
      class="icon-btn"
      aria-label={`${label}. Switch`}
      title={label}
      onClick={() => setState({ theme: next[theme] })}
    >
      <Icon name={theme === 'system' ? 'monitor' : theme === 'light' ? 'sun' : 'moon'} />
    </button>
  );
}

/**
 * Idle, the pill says whether the active provider can answer at all, not only how the last run went; until
 * the providers' state has come (`known`), it says it is checking, never a "Ready" it may take back.
 */
function idleText(agentStatus: string, setup: ReadinessState | undefined, known: boolean): string {
  if (!known) return 'Checking…';
  if (setup === 'needs_login') return 'Not logged in';
  if (setup === 'not_installed') return 'Not set up';
  return agentStatus === 'error' ? 'Last run failed' : 'Ready';
}

function Status() {
  const agent = useStore((s) => s.agent);
  const active = useStore((s) => s.queue.active || s.activeTraceId !== null);
  const conn = useStore((s) => s.conn);
  const id = useStore((s) => s.registry?.active.provider ?? s.session?.provider);
  const readiness = readinessOf(useStore((s) => (id ? s.cliStatus?.providers[id] : undefined)));
  const setup = readiness && blocked(readiness.state) ? readiness.state : undefined;
  // undefined until the first answer of /api/cli-status (null when it could not be read)
  const known = useStore((s) => s.cliStatus !== undefined);
  const text = conn.disconnected ? 'Offline' : active ? (agent.status === 'evaluating' ? 'Evaluating' : 'Running') : idleText(agent.status, setup, known);
  const tone = conn.disconnected ? 'offline' : active ? 'busy' : agent.status === 'error' || setup ? 'error' : 'idle';
  return (
    <span class={`status-pill ${tone}`} role="status" aria-live="polite" data-transport={conn.transport} data-phase={conn.phase}>
      <span class="dot" aria-hidden="true" />
      {text}
    </span>
  );
}

function ConnectionBanner() {
  const conn = useStore((s) => s.conn);
  if (!conn.disconnected) return null;
  return (
    <div class="conn-banner" role="alert" data-testid="conn-banner">
      <Icon name="wifiOff" size={16} />
      <span>Disconnected from the server. Reconnecting… Nothing is lost: missed updates load when it is back.</span>
      <button type="button" class="link-btn" onClick={reconnect}>
        Retry now
      </button>
    </div>
  );
}

function Toasts() {
  const toasts = useStore((s) => s.toasts);
  return <ToastList toasts={toasts} onDismiss={(id) => setState((s) => ({ toasts: s.toasts.filter((x) => x.id !== id) }))} />;
}

function TokenDialog() {
  const needed = useStore((s) => s.authNeeded);
  const [value, setValue] = useState('');
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (needed && ref.current && !ref.current.open) ref.current.showModal();
  }, [needed]);
  if (!needed) return null;
  return (
    <dialog ref={ref} class="token-dialog" aria-labelledby="token-title" onClose={() => setState({ authNeeded: false })}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          setToken(value.trim());
          setState({ authNeeded: false });
          location.reload();
        }}
      >
        <h2 id="token-title">Access token needed</h2>
        <p>
          This server is not on your machine, so it asks for its access token. Run <code>svc token</code> where the server runs and paste the token here.
        </p>
        <label class="field">
          <span>Token</span>
          <input type="password" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} autocomplete="off" required />
        </label>
        <div class="settings-actions">
          <button type="submit" class="btn primary">
            Connect
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * The empty chat: an invitation, or, when the active provider cannot answer (not installed, not
 * logged in), what is missing, the command that fixes it, and a way to choose another provider.
 */
function EmptyChat() {
  const id = useStore((s) => s.registry?.active.provider ?? s.session?.provider);
  const provider = useStore((s) => s.registry?.providers.find((p) => p.id === id));
  const status = useStore((s) => (id ? s.cliStatus?.providers[id] : undefined));
  const checking = useStore((s) => s.cliStatus?.refreshing === true);
  const readiness = readinessOf(status);
  if (!id || !provider || !readiness || !blocked(readiness.state)) {
    return (
      <div class="empty">
        <h2>What should we work on?</h2>
        <p class="muted">Messages go to the agent configured in the header. Type <kbd>/</kbd> for commands.</p>
      </div>
    );
  }
  return (
    <div class="empty setup" data-readiness={readiness.state} role="region" aria-labelledby="setup-title">
      <h2 id="setup-title">{missingTitle(provider, id, readiness.state)}</h2>
      <SetupHelp provider={provider} status={status} />
      <div class="setup-actions">
        <button type="button" class="btn primary" onClick={() => setState({ pickerOpen: true })}>
          Choose another provider
        </button>
        <button type="button" class="btn" disabled={checking} onClick={() => void pollCliStatus(true)}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
    </div>
  );
}

/**
 * Over the composer of a chat that has messages: the active provider cannot answer (not installed,
 * not logged in) and what fixes it. Sending stays possible: svc's readiness can be wrong for logins
 * it cannot see (a keychain), and a fallback provider may answer.
 */
function ProviderWarning() {
  const id = useStore((s) => s.registry?.active.provider ?? s.session?.provider);
  const provider = useStore((s) => s.registry?.providers.find((p) => p.id === id));
  const status = useStore((s) => (id ? s.cliStatus?.providers[id] : undefined));
  const checking = useStore((s) => s.cliStatus?.refreshing === true);
  const readiness = readinessOf(status);
  if (!id || !provider || !readiness || !blocked(readiness.state)) return null;
  return (
    <div class="provider-warning" role="status" data-readiness={readiness.state}>
      <Icon name="alert" size={16} />
      <span class="provider-warning-text">{missingTitle(provider, id, readiness.state)}: a message now fails unless a fallback provider answers it.</span>
      {readiness.fix && <CommandChip command={readiness.fix} label={`Copy the command that sets up ${provider.displayName}`} />}
      <button type="button" class="btn small" disabled={checking} onClick={() => void pollCliStatus(true)}>
        {checking ? 'Checking…' : 'Check again'}
      </button>
    </div>
  );
}

function Conversation() {
  const view = useStore((s) => s.view);
  const title = useStore((s) => s.sessions.find((x) => x.id === s.view.sessionId)?.title);
  const list = useRef<VirtualList<Row>>(null);
  const [atBottom, setAtBottom] = useState(true);
  const ready = useStore((s) => s.ready);

  useLayoutEffect(() => {
    if (ready && !view.loading) {
      const root = document.getElementById('app');
      if (root && !root.dataset.ready) {
        root.dataset.ready = '1';
        performance.mark('svc:interactive');
      }
    }
  }, [ready, view.loading]);

  const onClick = async (e: MouseEvent) => {
    const button = (e.target as HTMLElement).closest('.copy-code');
    if (!button) return;
    const code = button.closest('.code-block')?.querySelector('code')?.textContent ?? '';
    if (await copyText(code)) {
      button.textContent = 'Copied';
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    }
  };

  const empty = !view.loading && view.rows.length === 0 && !view.error;
  return (
    <section class="conversation" aria-label={title ? `Conversation: ${title}` : 'Conversation'} onClick={onClick} data-loading={view.loading}>
      {view.loadingBefore && (
        <div class="loading-older" role="status">
          <span class="spinner" aria-hidden="true" /> Loading older messages…
        </div>
      )}
      {view.error && (
        <p class="form-error pad" role="alert">
          Could not load the messages: {view.error}
        </p>
      )}
      {empty && <EmptyChat />}
      <VirtualList<Row>
        ref={list}
        items={view.rows}
        keyOf={keyOf}
        estimate={estimateRow}
        renderItem={renderRow}
        resetKey={view.epoch}
        focus={view.focus}
        followEnd={!view.hasMoreAfter}
        padTop={view.hasMoreBefore ? 8 : 24}
        padBottom={16}
        label="Messages"
        onNearTop={() => {
          if (getState().view.hasMoreBefore) void loadOlder();
        }}
        onNearBottom={() => {
          if (getState().view.hasMoreAfter) void loadNewer();
        }}
        onStickChange={setAtBottom}
      />
      <Composer
        onSent={() => list.current?.scrollToBottom()}
        above={
          <>
            {!empty && <ProviderWarning />}
            {(!atBottom || view.hasMoreAfter) && view.rows.length > 0 && (
            <button
              type="button"
              class="jump-latest"
              onClick={() => {
                if (getState().view.hasMoreAfter) jumpToLatest();
                else list.current?.scrollToBottom();
              }}
            >
              <Icon name="down" size={16} /> Latest
            </button>
            )}
          </>
        }
      />
    </section>
  );
}

export function App() {
  const page = useStore((s) => s.page);
  const theme = useStore((s) => s.theme);
  const title = useStore((s) => s.sessions.find((x) => x.id === s.view.sessionId)?.title);

  useLayoutEffect(() => applyTheme(theme), [theme]);
  useEffect(() => {
    document.title = title ? `${title} · svc` : 'svc';
  }, [title]);

  // page ↔ address (#settings), so Back works and a reload stays on the page
  useEffect(() => {
    const want = page === 'settings' ? '#settings' : '';
    if (location.hash !== want) history.pushState(null, '', want || location.pathname + location.search);
  }, [page]);
  useEffect(() => {
    const onPop = () => setState({ page: location.hash === '#settings' ? 'settings' : 'chat' });
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  // (a layout effect: the shortcuts work from the first frame the page shows)
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setState({ sidebarOpen: true, page: 'chat' });
        const search = document.getElementById('search-input');
        search?.focus();
        // in a narrow window the drawer has to show first
        if (document.activeElement !== search) setTimeout(() => document.getElementById('search-input')?.focus(), 60);
      } else if (mod && e.shiftKey && e.key.toLowerCase() === 'o') {
        e.preventDefault();
        void newChat();
      } else if (e.key === 'Escape' && getState().sidebarOpen) {
        setState({ sidebarOpen: false });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div class="layout">
      <a class="skip" href="#composer-input">
        Skip to the message box
      </a>
      <Sidebar />
      <div class="main">
        <header class="topbar">
          <button type="button" class="icon-btn menu-btn" aria-label="Open sessions and search" onClick={() => setState({ sidebarOpen: true })}>
            <Icon name="menu" />
          </button>
          {/* (the settings page has its own heading) */}
          {page === 'chat' && <h1 class="session-name">{title ?? 'svc'}</h1>}
          <ProviderPicker />
          <div class="topbar-right">
            <Status />
            <ThemeButton />
            <button type="button" class="icon-btn" aria-label="Settings" title="Settings" onClick={() => setState({ page: 'settings' })}>
              <Icon name="settings" />
            </button>
          </div>
        </header>
        <ConnectionBanner />
        {page === 'chat' && <PhaseStepper />}
        {page === 'chat' && <GoalBanner />}
        {page === 'settings' ? <Settings /> : <Conversation />}
      </div>
      <Toasts />
      <TokenDialog />
      <MemoryPanel />
      <SkillsPanel />
      <ReviewPanel />
      <McpPanel />
    </div>
  );
}
