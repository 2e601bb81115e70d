// Writes a docs edit (docs-edit.ts) to disk: the real path (symlinks resolved) must stay inside its
// root, the file must be UTF-8 text under the size limit, and the new text replaces the old in one
// rename, so a failed edit leaves the file as it was.
import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { badRequest } from '../../core/errors.ts';
import { appendSection, applyUnifiedDiff, docsPathRefusal, MAX_DOCS_CONTENT, MAX_DOCS_FILE, replaceSection } from './docs-edit.ts';

export type DocsOperation = 'append_section' | 'replace_section' | 'apply_patch';

export async function editDoc(input: { root: string; target: 'project' | 'notes'; path: string; operation: DocsOperation; content: string }): Promise<{ path: string; bytes: number; created: boolean }> {
  const refusal = docsPathRefusal(input.path, input.target);
  if (refusal) throw badRequest('DOCS_EDIT_REFUSED', `${input.path}: ${refusal}.`);
  if (Buffer.byteLength(input.content) > MAX_DOCS_CONTENT) throw badRequest('DOCS_EDIT_REFUSED', `The content is over ${MAX_DOCS_CONTENT} bytes; make smaller edits.`);
  if (input.target === 'notes') await mkdir(input.root, { recursive: true, mode: 0o700 });
  const file = join(input.root, input.path);
  const realRoot = await realpath(input.root);
  let parent: string;
  try {
    parent = await realpath(dirname(file));
  } catch {
    throw badRequest('DOCS_EDIT_REFUSED', `The folder of ${input.path} does not exist.`);
  }
  const inside = (p: string) => {
    const rel = relative(realRoot, p);
    return !rel.startsWith('..') && !isAbsolute(rel);
  };
  const created = !existsSync(file);
  const real = created ? join(parent, file.slice(dirname(file).length + 1)) : await realpath(file);
  if (!inside(parent) || !inside(real)) throw badRequest('DOCS_EDIT_REFUSED', `${input.path} leads outside its root.`);
  const before = created ? '' : await readFile(real);
  if (before.length > MAX_DOCS_FILE) throw badRequest('DOCS_EDIT_REFUSED', `${input.path} is over 1 MB; it is not edited here.`);
  const text = before.toString();
  if (typeof before !== 'string' && (before.includes(0) || Buffer.from(text).compare(before) !== 0)) throw badRequest('DOCS_EDIT_REFUSED', `${input.path} is not UTF-8 text.`);
  let next: string;
  if (input.operation === 'append_section') next = appendSection(text, input.content);
  else {
    if (created) throw badRequest('DOCS_EDIT_REFUSED', `${input.path} does not exist; append a section to create it.`);
    const result = input.operation === 'replace_section' ? replaceSection(text, input.content) : applyUnifiedDiff(text, input.content);
    if (!result.ok) throw badRequest(input.operation === 'apply_patch' ? 'PATCH_NOT_APPLIED' : 'DOCS_EDIT_REFUSED', `${input.path} was not changed: ${result.reason}.`);
    next = result.text;
  }
  const tmp = `${real}.svc-edit-${process.pid}`;
  await writeFile(tmp, next, { mode: 0o644 });
  await rename(tmp, real);
  return { path: input.path, bytes: Buffer.byteLength(next), created };
}
