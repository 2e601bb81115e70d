// The bounded record of a run's steps carried by `agent_done` (spec: "bounded tool log").
import type { ToolLogEntry } from '../protocol/events.ts';

export type { ToolLogEntry };

export const MAX_TOOL_LOG_ENTRIES = 100;
export const MAX_FIELD_CHARS = 4000;

export function clip(text: string, max = MAX_FIELD_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** Keeps an input object readable but bounded: oversized inputs are replaced by a clipped preview. */
export function boundInput(input: Record<string, unknown>, max = MAX_FIELD_CHARS): Record<string, unknown> {
  const json = JSON.stringify(input);
  return json.length <= max ? input : { preview: clip(json, max) };
}

export class ToolLog {
  private readonly entries = new Map<string, ToolLogEntry>();
  private dropped = 0;

  start(entry: Omit<ToolLogEntry, 'status'>): void {
    if (this.entries.size >= MAX_TOOL_LOG_ENTRIES) {
      this.dropped++;
      return;
    }
    this.entries.set(entry.stepId, { ...entry, status: 'running', ...(entry.input ? { input: boundInput(entry.input) } : {}) });
  }

  finish(stepId: string, ok: boolean, output?: string): void {
    const entry = this.entries.get(stepId);
    if (!entry) return;
    entry.status = ok ? 'ok' : 'error';
    if (output !== undefined) entry.output = clip(output);
  }

  toJSON(): ToolLogEntry[] {
    const list = [...this.entries.values()];
    if (this.dropped) list.push({ stepId: 'dropped', name: `${this.dropped} more steps not logged`, step: 'tool', status: 'ok' });
    return list;
  }
}
