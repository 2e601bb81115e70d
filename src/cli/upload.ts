// `svc upload <file...>` and `svc chat --attach <file>`: send local files to a running server's
// POST /api/upload. Every file is checked before the first is sent, so a typo uploads nothing.
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { formatSize, UPLOAD_LIMIT_BYTES, type UploadedFile } from '../protocol/media.ts';
import { jsonOf, requestText, type TextResponse } from './http-client.ts';
import { authHeaders, type ServerTarget } from './target.ts';

/** A failure already worded for the terminal, with the exit code it ends the command with. */
class UploadError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

async function checkFile(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new UploadError(`svc: file not found: ${file}`, 2);
  // the server would refuse it too, but only after the whole file was read and sent
  if (info.size > UPLOAD_LIMIT_BYTES) {
    throw new UploadError(`svc: ${file} is ${formatSize(info.size)}, over the ${UPLOAD_LIMIT_BYTES / 1024 / 1024} MiB upload limit`, 2);
  }
}

async function uploadOne(file: string, server: ServerTarget): Promise<UploadedFile> {
  const base = server.url;
  const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
    throw new UploadError(`svc: cannot read ${file}: ${err.code ?? err.message}`, 2);
  });
  let response: TextResponse;
  try {
    response = await requestText(`${base}/api/upload?filename=${encodeURIComponent(basename(file))}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...authHeaders(server) },
      body: bytes,
    });
  } catch (err) {
    throw new UploadError(`svc: cannot reach ${server.url}: ${(err as Error).message}. Start it with \`svc serve\`.`, 1);
  }
  const body = jsonOf(response) as Partial<UploadedFile> & { message?: string };
  if (response.status !== 201) {
    throw new UploadError(`svc: upload of ${file} refused: ${response.status} ${body.message ?? 'no reason given'}`, 1);
  }
  return body as UploadedFile;
}

/**
 * Uploads the files in order (none when one is missing or too big). On failure the error is printed
 * and its exit code returned instead: 2 for a bad local file, 1 for a refused upload.
 */
export async function uploadFiles(files: string[], server: ServerTarget): Promise<UploadedFile[] | number> {
  try {
    for (const file of files) await checkFile(file);
    const uploaded: UploadedFile[] = [];
    for (const file of files) uploaded.push(await uploadOne(file, server));
    return uploaded;
  } catch (err) {
    if (!(err instanceof UploadError)) throw err;
    console.error(err.message);
    return err.exitCode;
  }
}

/** `svc upload`: prints "<path on the server>\t<url>" per file. Returns the exit code. */
export async function uploadCommand(files: string[], server: ServerTarget): Promise<number> {
  const uploaded = await uploadFiles(files, server);
  if (typeof uploaded === 'number') return uploaded;
  for (const file of uploaded) console.log(`${file.path}\t${server.url}${file.url}`);
  return 0;
}
