// `svc upload <file...>` and `svc chat --attach <file>`: send local files to a running server's
// POST /api/upload. Every file is checked before the first is sent, so a typo uploads nothing. A local file
// that cannot be used throws LocalFileError, which main.ts prints as one line (exit 1).
import { basename } from 'node:path';
import { formatSize, UPLOAD_LIMIT_BYTES, type UploadedFile } from '../protocol/media.ts';
import { jsonOf, requestText, type TextResponse } from './http-client.ts';
import { LocalFileError, readBytes, statFile } from './local-file.ts';
import { authHeaders, type ServerTarget } from './target.ts';

/** The server could not be reached or refused the file: worded for the terminal, exit 1. */
class UploadError extends Error {}

async function checkFile(file: string): Promise<void> {
  const info = await statFile(file);
  // the server would refuse it too, but only after the whole file was read and sent
  if (info.size > UPLOAD_LIMIT_BYTES) {
    throw new LocalFileError(`${file} is ${formatSize(info.size)}, over the ${UPLOAD_LIMIT_BYTES / 1024 / 1024} MiB upload limit; send a smaller file`);
  }
}

async function uploadOne(file: string, server: ServerTarget): Promise<UploadedFile> {
  const base = server.url;
  const bytes = await readBytes(file);
  let response: TextResponse;
  try {
    response = await requestText(`${base}/api/upload?filename=${encodeURIComponent(basename(file))}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...authHeaders(server) },
      body: bytes,
      pin: server.pin,
    });
  } catch (err) {
    throw new UploadError(`svc: cannot reach ${server.url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
  }
  const body = jsonOf(response) as Partial<UploadedFile> & { message?: string };
  if (response.status !== 201) {
    throw new UploadError(`svc: upload of ${file} refused: ${response.status} ${body.message ?? 'no reason given'}`);
  }
  return body as UploadedFile;
}

/**
 * Uploads the files in order (none when one is missing or too big: LocalFileError). When the server
 * cannot be reached or refuses one, the error is printed and exit code 1 returned instead.
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
    return 1;
  }
}

/** `svc upload`: prints "<path on the server>\t<url>" per file. Returns the exit code. */
export async function uploadCommand(files: string[], server: ServerTarget): Promise<number> {
  const uploaded = await uploadFiles(files, server);
  if (typeof uploaded === 'number') return uploaded;
  for (const file of uploaded) console.log(`${file.path}\t${server.url}${file.url}`);
  return 0;
}
