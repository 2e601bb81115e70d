// Settings › Traces and disk use: what the data directory holds, by part (GET /api/disk), under the
// retention fields of the `traces` section. The parts that hold nothing are left out; the security
// audit log's share of the database is named, since it is the one part svc never trims. Uploads and
// screenshots are never removed by svc on its own: a button removes those older than MEDIA_DAYS, asked first.
import { useEffect, useState } from 'preact/hooks';
import { Button, ConfirmDialog } from '../../ui/components.tsx';
import { del, errorText, get } from '../api.ts';
import { toast } from '../store.ts';
import { formatSize } from '../../../src/protocol/media-limits.ts';
import type { DiskPart, DiskReport } from '../../../src/protocol/disk.ts';
import './disk.css';

const LABELS: Record<DiskPart, string> = {
  database: 'Database',
  traces: 'Run traces',
  media: 'Uploads and screenshots',
  memory: 'Memory',
  runs: 'Run directories',
  worktrees: 'Worker worktrees',
  skills: 'Skills',
  mcp: 'MCP servers',
  browser: 'Browser profile',
  pi: 'Pi sessions',
  logs: 'Logs',
  other: 'Other',
};

const MEDIA_DAYS = 30;

export function DiskUse() {
  const [report, setReport] = useState<DiskReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(true);
  const measure = (fresh: boolean) => {
    setBusy(true);
    setError(null);
    get<DiskReport>(`/api/disk${fresh ? '?fresh=true' : ''}`)
      .then(setReport, (err) => setError(errorText(err)))
      .finally(() => setBusy(false));
  };
  useEffect(() => measure(false), []);
  const [asking, setAsking] = useState(false);
  const removeMedia = async () => {
    setAsking(false);
    try {
      const done = await del<{ removed: number; bytes: number }>(`/api/media?olderThanDays=${MEDIA_DAYS}`);
      toast(`Removed ${done.removed} media files (${formatSize(done.bytes)}).`, 'info');
      measure(true);
    } catch (err) {
      toast(`The media files could not be removed: ${errorText(err)}`, 'error');
    }
  };
  const t = report?.traces;
  return (
    <section class="disk-use" aria-labelledby="disk-use-title" aria-busy={busy} data-disk={report ? 'ready' : error ? 'failed' : 'loading'}>
      <div class="disk-use-head">
        <h3 id="disk-use-title">Disk use{report && <span class="disk-total"> {formatSize(report.totalBytes)}</span>}</h3>
        <Button type="button" small variant="ghost" disabled={busy} onClick={() => measure(true)}>
          {busy ? 'Measuring…' : 'Measure again'}
        </Button>
      </div>
      {error && (
        <p class="form-error" role="alert">
          The disk use could not be measured: {error} Try “Measure again”.
        </p>
      )}
      {!report && !error && <p class="section-help" role="status">Measuring the data directory…</p>}
      {report && (
        <>
          <p class="section-help">
            In <code>{report.home}</code>.
          </p>
          <ul class="disk-parts">
            {report.parts
              .filter((p) => p.bytes > 0 || p.part === 'traces')
              .map((p) => (
                <li key={p.part} data-part={p.part}>
                  <span class="disk-part-name">{LABELS[p.part]}</span>
                  <span class="disk-part-size">{formatSize(p.bytes)}</span>
                  <span class="disk-bar" aria-hidden="true">
                    <span style={{ width: `${report.totalBytes ? Math.max(1, Math.round((p.bytes / report.totalBytes) * 100)) : 0}%` }} />
                  </span>
                </li>
              ))}
          </ul>
          {t && (
            <p class="section-help" data-traces>
              {t.count} traces{t.pinned ? `, ${t.pinned} pinned` : ''}. Kept: {t.maxBytes ? `up to ${formatSize(t.maxBytes)}` : 'any size'}, {t.maxAgeDays ? `${t.maxAgeDays} days` : 'any age'}.{' '}
              {t.lastPrune
                ? `Last removed ${t.lastPrune.count} (${formatSize(t.lastPrune.bytes)}) on ${new Date(t.lastPrune.at).toLocaleString()}.`
                : 'None removed yet.'}
            </p>
          )}
          <div class="setting-actions">
            <Button type="button" small variant="ghost" disabled={busy} onClick={() => setAsking(true)}>
              Remove uploads and screenshots older than {MEDIA_DAYS} days
            </Button>
          </div>
          <p class="section-help">
            The security audit log takes {formatSize(report.database.auditBytes)} of the database ({report.database.auditEntries} entries). It is never
            trimmed: its entries are chained by hashes, so removing any would break the proof that none was changed.
          </p>
        </>
      )}
      <ConfirmDialog open={asking} title={`Remove uploads and screenshots older than ${MEDIA_DAYS} days?`} confirmLabel="Remove them" danger onConfirm={() => void removeMedia()} onCancel={() => setAsking(false)}>
        <p>Chat messages that show or link to them will show them missing. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
