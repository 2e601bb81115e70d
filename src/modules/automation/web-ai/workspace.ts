// Files the web-ai skill reads and writes, confined to the working directory after resolving links:
// attachments must be files inside it (or inside svc's media directory, where uploads land), and code
// blocks are written only under a directory inside it, never through a symbolic link, never over a file
// that exists unless asked (and then nothing is written when any one exists).
import { constants, promises as fs } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { extensionFor } from './code.ts';
import { webAiErrors } from './errors.ts';
import type { CodeBlock, SavedFile } from './types.ts';

/** `p` is `root` or below it (both already real paths). */
export function isInside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
}

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** The real path of `p`: its deepest existing ancestor with links resolved, and the rest as written. */
export async function realNearest(p: string): Promise<string> {
  const rest: string[] = [];
  for (let cur = resolve(p); ; ) {
    try {
      return join(await fs.realpath(cur), ...rest);
    } catch (err) {
      if (code(err) !== 'ENOENT') throw err;
      const parent = dirname(cur);
      if (parent === cur) throw err;
      rest.unshift(basename(cur));
      cur = parent;
    }
  }
}

/** Attachments as real absolute paths: each must exist, be a regular file, and lie inside one of `roots`. */
export async function resolveInputFiles(workingDir: string, roots: readonly string[], files: readonly string[]): Promise<string[]> {
  const realRoots = await Promise.all(roots.map((r) => realNearest(r)));
  const out: string[] = [];
  for (const f of files) {
    let real: string;
    try {
      real = await fs.realpath(resolve(workingDir, f));
    } catch (err) {
      if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') throw webAiErrors.fileNotFound(f);
      throw err;
    }
    if (!realRoots.some((r) => isInside(r, real))) throw webAiErrors.outside('The file', f, workingDir);
    if (!(await fs.stat(real)).isFile()) throw webAiErrors.notAFile(f);
    out.push(real);
  }
  return out;
}

/** The directory `saveTo` names inside the working directory (it may not exist yet), or OUTSIDE_WORKING_DIR. */
export async function saveDirectory(workingDir: string, saveTo: string): Promise<{ root: string; dir: string }> {
  const root = await realNearest(workingDir);
  const dir = await realNearest(resolve(root, saveTo));
  if (!isInside(root, dir)) throw webAiErrors.outside('The directory', saveTo, workingDir);
  return { root, dir };
}

/** File names for the blocks: the one the answer gives, else block-<n>.<ext>; repeats get -2, -3. */
export function plannedNames(blocks: readonly CodeBlock[]): string[] {
  const used = new Set<string>();
  return blocks.map((b, i) => {
    const wanted = b.filename ?? `block-${i + 1}.${extensionFor(b.language)}`;
    const dot = wanted.lastIndexOf('.');
    const [stem, ext] = dot > wanted.lastIndexOf('/') + 1 ? [wanted.slice(0, dot), wanted.slice(dot)] : [wanted, ''];
    let name = wanted;
    for (let n = 2; used.has(name); n++) name = `${stem}-${n}${ext}`;
    used.add(name);
    return name;
  });
}

/** Write the blocks under `saveTo` (inside the working directory). Paths in the answer are relative to the working directory. */
export async function saveBlocks(workingDir: string, saveTo: string, blocks: readonly CodeBlock[], overwrite: boolean): Promise<SavedFile[]> {
  const { root, dir } = await saveDirectory(workingDir, saveTo);
  const targets = plannedNames(blocks).map((n) => resolve(dir, n));
  const existing: string[] = [];
  for (const t of targets) {
    if (!isInside(root, await realNearest(dirname(t)))) throw webAiErrors.outside('The file', relative(root, t), workingDir);
    const st = await fs.lstat(t).catch((err: unknown) => {
      if (code(err) === 'ENOENT') return null;
      throw err;
    });
    if (!st) continue;
    if (st.isSymbolicLink()) throw webAiErrors.symlink(relative(root, t));
    existing.push(relative(root, t));
  }
  if (existing.length && !overwrite) throw webAiErrors.fileExists(existing);
  const saved: SavedFile[] = [];
  for (const [i, t] of targets.entries()) {
    await fs.mkdir(dirname(t), { recursive: true });
    // checked again now that the directories exist: a link put there meanwhile is not followed out
    if (!isInside(root, await fs.realpath(dirname(t)))) throw webAiErrors.outside('The file', relative(root, t), workingDir);
    const text = `${blocks[i]!.code}\n`;
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (overwrite ? constants.O_TRUNC : constants.O_EXCL);
    const handle = await fs.open(t, flags, 0o644).catch((err: unknown) => {
      if (code(err) === 'EEXIST') throw webAiErrors.fileExists([relative(root, t)]);
      if (code(err) === 'ELOOP') throw webAiErrors.symlink(relative(root, t));
      throw err;
    });
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    saved.push({ path: relative(root, t), bytes: Buffer.byteLength(text), language: blocks[i]!.language });
  }
  return saved;
}
