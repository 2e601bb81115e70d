// The rows of the conversation: saved messages, live runs (streamed answer, steps, notices),
// messages being sent, command output and notices. A run and the message it saved render through
// the same component (RunAnswer), from the same fields.
import { Component } from 'preact';
import type { Message } from '../api.ts';
import { dismissRow, retryLocal } from '../actions.ts';
import { useStore, type Row } from '../store.ts';
import { viewOfMessage, viewOfRun } from '../record.ts';
import { Icon } from '../../ui/icons.tsx';
import { AttachmentList } from './Attachments.tsx';
import { CommandChip, CopyButton } from '../../ui/Copy.tsx';
import { RunAnswer, Time } from './RunAnswer.tsx';
import { PermissionCard } from '../../ui/PermissionCard.tsx';
import { answerPermission, useRunPermissions } from '../permissions.ts';
import { splitAttachments, type AttachmentRef } from '../attachments.ts';

function UserBubble({ content, files = [], children, status }: { content: string; files?: AttachmentRef[]; children?: preact.ComponentChildren; status?: string }) {
  return (
    <div class="msg msg-user" data-role="user" data-status={status}>
      {content && <div class="bubble">{content}</div>}
      <AttachmentList files={files} />
      {children}
    </div>
  );
}

class MessageRow extends Component<{ message: Message; queued?: boolean }> {
  override shouldComponentUpdate(next: { message: Message; queued?: boolean }) {
    return next.message !== this.props.message || next.queued !== this.props.queued;
  }

  override render({ message, queued }: { message: Message; queued?: boolean }) {
    if (message.role === 'user') {
      const { text, files } = splitAttachments(message.content);
      return (
        <div class="row-wrap" data-message-id={message.id}>
          <UserBubble content={text} files={files} status={queued ? 'queued' : undefined}>
            <div class="msg-foot">
              {queued && <span class="badge">Queued</span>}
              <Time at={message.createdAt} />
              <CopyButton text={() => message.content} />
            </div>
          </UserBubble>
        </div>
      );
    }
    const run = viewOfMessage(message);
    return (
      <div class="row-wrap" data-message-id={message.id}>
        {run ? (
          <RunAnswer view={run} />
        ) : (
          <div class="msg msg-system" data-role="system">
            {message.content}
            {/* a note with the command that fixes what it reports (a worker whose CLI could not run) */}
            {typeof message.meta?.fix === 'string' && <CommandChip command={message.meta.fix} label="Copy the command that fixes it" />}
          </div>
        )}
      </div>
    );
  }
}

function RunRow({ traceId }: { traceId: string }) {
  const run = useStore((s) => s.runs[traceId]);
  const permissions = useRunPermissions(traceId);
  if (!run) return <div class="msg msg-system">This run is no longer in memory.</div>;
  return (
    <div class="row-wrap">
      <RunAnswer view={viewOfRun(run)}>
        {permissions.map((request) => (
          <PermissionCard key={request.id} request={request} onAnswer={(body) => answerPermission(request.id, body)} />
        ))}
      </RunAnswer>
    </div>
  );
}

function LocalRow({ row }: { row: Extract<Row, { kind: 'local' }> }) {
  return (
    <div class="row-wrap">
      <UserBubble content={row.content} files={row.attachments} status={row.state}>
        <div class="msg-foot">
          {row.state === 'sending' && <span class="muted">Sending…</span>}
          {row.state === 'failed' && (
            <>
              <span class="send-error" role="alert">
                <Icon name="alert" size={14} /> {row.error}
              </span>
              <button type="button" class="link-btn" onClick={() => retryLocal(row.key)}>
                Retry
              </button>
              <button type="button" class="link-btn" onClick={() => dismissRow(row.key)}>
                Dismiss
              </button>
            </>
          )}
        </div>
      </UserBubble>
    </div>
  );
}

function CommandRow({ row }: { row: Extract<Row, { kind: 'command' }> }) {
  return (
    <div class="row-wrap">
      <div class="msg msg-command" data-status={row.status}>
        <div class="command-head">
          <Icon name="command" size={15} />
          <code>{row.text}</code>
          {row.status === 'running' ? <span class="spinner" aria-label="running" /> : <span class="muted">{row.status === 'ok' ? '' : row.status}</span>}
          <button type="button" class="icon-btn small push" aria-label="Dismiss command output" onClick={() => dismissRow(row.key)}>
            <Icon name="x" size={14} />
          </button>
        </div>
        {row.output && <pre class="command-out">{row.output}</pre>}
      </div>
    </div>
  );
}

export function renderRow(row: Row) {
  switch (row.kind) {
    case 'message':
      return <MessageRow message={row.message} queued={row.queued} />;
    case 'run':
      return <RunRow traceId={row.traceId} />;
    case 'local':
      return <LocalRow row={row} />;
    case 'command':
      return <CommandRow row={row} />;
    case 'notice':
      return (
        <div class="row-wrap">
          <div class="msg msg-system">{row.text}</div>
        </div>
      );
  }
}

/** A guess of a row's height from its text, before it is measured. */
export function estimateRow(row: Row, width: number): number {
  const columns = Math.max(20, Math.min(width, 760) / 8.2);
  const lines = (text: string) => {
    let n = 0;
    let start = 0;
    // cap the work for huge texts: a rough figure is enough
    const limit = Math.min(text.length, 20_000);
    while (start < limit) {
      let end = text.indexOf('\n', start);
      if (end === -1 || end > limit) end = limit;
      n += Math.max(1, Math.ceil((end - start) / columns));
      start = end + 1;
    }
    return n + (text.length > limit ? (text.length - limit) / columns : 0);
  };
  switch (row.kind) {
    case 'message': {
      const m = row.message;
      if (m.role === 'user') return 64 + lines(m.content) * 24;
      // (a run's record: a heading, its sentences, the command that fixes it, the footer)
      if (m.role === 'system') return m.meta?.traceId ? 170 : 48;
      const fences = (m.content.match(/```/g)?.length ?? 0) / 2;
      return 56 + lines(m.content) * 26 + fences * 48;
    }
    case 'local':
      return 64 + lines(row.content) * 24;
    case 'run':
      return 120;
    case 'command':
      return 72 + lines(row.output) * 20;
    case 'notice':
      return 48;
  }
}
