// What a person reads before answering a tool permission request: the command a shell tool runs, the
// file a write or an edit touches and its change, or the tool's input. Tools are known by what their
// input holds (a `command`, a file path with content or old/new strings), so every CLI's names work:
// Bash / bash / run_shell_command / exec_command, Write / create / write_file, Edit / edit / str_replace,
// and the ACP requests of Copilot (`{fileName, diff}` with a unified diff), OpenCode (`{filepath, diff}`) and
// Gemini (`{path, content}` or `{path, oldText, newText}`, from its diff block). Pure.
import type { PermissionSummary } from '../../protocol/permissions.ts';

const MAX_TEXT = 4000;
const MAX_INPUT_STRING = 10_000;

const cut = (text: string, max = MAX_TEXT) => (text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The shell command a tool's input runs, if it runs one. */
export function commandOf(input: Record<string, unknown>): string | undefined {
  const command = input.command ?? input.cmd;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) return command.join(' ');
  return undefined;
}

/** The file a tool's input writes or edits, if it names one. */
export function pathOf(input: Record<string, unknown>): string | undefined {
  return str(input.file_path) ?? str(input.filePath) ?? str(input.path) ?? str(input.absolute_path) ?? str(input.fileName) ?? str(input.filepath);
}

/** A unified-looking diff of one replacement: the old lines removed, the new ones added. */
function replacement(oldText: string, newText: string): string {
  const lines = (text: string, mark: string) => text.split('\n').map((line) => `${mark}${line}`);
  return [...lines(oldText, '-'), ...lines(newText, '+')].join('\n');
}

/** A unified diff as the CLI made it (Copilot's, OpenCode's), without the blank lines around it. */
const unifiedDiff = (input: Record<string, unknown>) => str(input.diff)?.trim();
/** A unified diff that creates its file: old side /dev/null (Copilot), or a first hunk from line 0 (OpenCode). */
const createsFile = (diff: string) => /^--- (a\/)?\/?dev\/null$/m.test(diff) || /^@@ -0,0 /m.test(diff);

function changeOf(input: Record<string, unknown>): string | undefined {
  const diff = unifiedDiff(input);
  if (diff) return diff;
  const content = str(input.content) ?? str(input.file_text) ?? str(input.text);
  if (content !== undefined) return content.split('\n').map((line) => `+${line}`).join('\n');
  const oldText = str(input.old_string) ?? str(input.old_str) ?? str(input.oldText);
  const newText = str(input.new_string) ?? str(input.new_str) ?? str(input.newText);
  if (oldText !== undefined && newText !== undefined) return replacement(oldText, newText);
  if (Array.isArray(input.edits)) {
    const parts = input.edits.flatMap((edit) => {
      const e = (edit ?? {}) as Record<string, unknown>;
      const o = str(e.old_string);
      const n = str(e.new_string);
      return o !== undefined && n !== undefined ? [replacement(o, n)] : [];
    });
    if (parts.length) return parts.join('\n…\n');
  }
  return undefined;
}

const baseName = (path: string) => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;

export function summarize(tool: string, input: Record<string, unknown>, description?: string): PermissionSummary {
  const command = commandOf(input);
  if (command !== undefined) return { title: `Run ${cut(command.replace(/\s+/g, ' '), 200)}`, command: cut(command) };
  const path = pathOf(input);
  const change = changeOf(input);
  if (path !== undefined) {
    const diff = unifiedDiff(input);
    const edits = diff ? !createsFile(diff) : change?.startsWith('-');
    const verb = edits ? 'Edit' : change !== undefined ? 'Write' : `${tool} on`;
    return { title: `${verb} ${baseName(path)}`, path, ...(change !== undefined ? { diff: cut(change) } : {}) };
  }
  const detail = JSON.stringify(input, null, 2);
  return { title: description ? `${tool}: ${cut(description, 200)}` : `Use ${tool}`, ...(detail !== '{}' ? { detail: cut(detail, 2000) } : {}) };
}

/** The input as it is kept and shown: long strings cut (a whole file's content is not needed to decide). */
export function boundedInput(input: Record<string, unknown>): Record<string, unknown> {
  const bound = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return cut(value, MAX_INPUT_STRING);
    if (depth > 6 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.slice(0, 200).map((v) => bound(v, depth + 1));
    return Object.fromEntries(Object.entries(value).slice(0, 200).map(([k, v]) => [k, bound(v, depth + 1)]));
  };
  return bound(input, 0) as Record<string, unknown>;
}
