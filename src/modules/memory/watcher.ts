// Watches the memory directory for edits made outside svc (an editor, git, a sync tool) and reports the
// changed paths once they have been quiet for a moment. Hidden files (editors' swap files, our own
// temporary files) are ignored.
import { watch, type FSWatcher } from 'node:fs';

export const DEBOUNCE_MS = 150;

export class DirWatcher {
  private watcher?: FSWatcher;
  private readonly pending = new Set<string>();
  private everything = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly root: string,
    /** Relative paths that changed, or 'all' when the platform did not say which. */
    private readonly onChange: (paths: string[] | 'all') => void,
    private readonly onError: (err: Error) => void,
  ) {}

  get watching(): boolean {
    return Boolean(this.watcher);
  }

  /** Starts watching; false (and onError) when the platform refuses (e.g. too many watches). */
  start(): boolean {
    if (this.watcher) return true;
    try {
      this.watcher = watch(this.root, { recursive: true, persistent: false }, (_event, name) => this.note(name));
    } catch (err) {
      this.onError(err as Error);
      return false;
    }
    this.watcher.on('error', (err) => {
      this.close();
      this.onError(err);
    });
    return true;
  }

  private note(name: string | Buffer | null): void {
    const rel = name === null ? undefined : String(name).split(/[\\/]/).join('/');
    if (rel === undefined) this.everything = true;
    else if (rel.split('/').some((s) => s.startsWith('.'))) return;
    else this.pending.add(rel);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
  }

  private flush(): void {
    const paths = [...this.pending];
    this.pending.clear();
    const all = this.everything;
    this.everything = false;
    if (all) this.onChange('all');
    else if (paths.length) this.onChange(paths);
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }
}
