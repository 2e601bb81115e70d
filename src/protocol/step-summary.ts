// The one-line gist of a step, shared by the saved run record and the web UI. Without zod on
// purpose: the web UI imports it, and a value import from a file that builds schemas would put zod
// in the browser bundle. src/protocol/runs.ts re-exports it.

const SUMMARY_KEYS = ['command', 'cmd', 'file_path', 'path', 'filePath', 'pattern', 'query', 'url', 'description', 'prompt'];

/** The one-line gist of a step's input (the command it ran, the file it touched…). */
export function stepSummary(input: Record<string, unknown> | undefined): string {
  for (const key of SUMMARY_KEYS) {
    const value = input?.[key];
    if (typeof value === 'string' && value) return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  }
  return '';
}
