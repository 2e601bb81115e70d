// Files attached to a user message: image thumbnails and file chips, served from /media/. A page
// on another machine authenticates with the bearer token, which an <img> cannot send: there the
// file is fetched with the header and shown from a blob URL.
import { useEffect, useState } from 'preact/hooks';
import { getToken } from '../api.ts';
import { at } from '../base.ts';
import { displayName, isImage, type AttachmentRef } from '../attachments.ts';
import { Icon } from '../../ui/icons.tsx';

const mediaPath = (filename: string) => at(`/media/${encodeURIComponent(filename)}`);

async function fetchBlobUrl(filename: string, token: string): Promise<string> {
  const response = await fetch(mediaPath(filename), { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${response.status}`);
  return URL.createObjectURL(await response.blob());
}

function Thumbnail({ file }: { file: AttachmentRef }) {
  const token = getToken();
  const [src, setSrc] = useState(token ? undefined : mediaPath(file.filename));
  useEffect(() => {
    if (!token) return;
    let url: string | undefined;
    let live = true;
    fetchBlobUrl(file.filename, token)
      .then((u) => (live ? setSrc((url = u)) : URL.revokeObjectURL(u)))
      .catch(() => {});
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [file.filename, token]);
  const name = displayName(file.filename);
  return (
    <a class="attachment attachment-image" href={src} target="_blank" rel="noopener" title={`${name} (${file.size})`}>
      {src ? <img src={src} alt={name} loading="lazy" /> : <span class="spinner" aria-label="loading" />}
    </a>
  );
}

function FileChip({ file }: { file: AttachmentRef }) {
  const name = displayName(file.filename);
  const open = async (e: Event) => {
    const token = getToken();
    if (!token) return; // the plain link works
    e.preventDefault();
    try {
      window.open(await fetchBlobUrl(file.filename, token), '_blank', 'noopener');
    } catch {
      // nothing to open
    }
  };
  return (
    <a class="attachment attachment-file" href={mediaPath(file.filename)} target="_blank" rel="noopener" onClick={open}>
      <Icon name="file" size={15} />
      <span class="attachment-name">{name}</span>
      <span class="muted">{file.size}</span>
    </a>
  );
}

export function AttachmentList({ files }: { files: AttachmentRef[] }) {
  if (!files.length) return null;
  return (
    <div class="attachments" aria-label="Attached files">
      {files.map((file) => (isImage(file.type) ? <Thumbnail key={file.filename} file={file} /> : <FileChip key={file.filename} file={file} />))}
    </div>
  );
}
