// The media module: the media directory (uploads, screenshots) and its routes, and how attached
// files are described to the agent.
export { MediaStore, mediaType } from './media.service.ts';
export { withAttachments, type AttachedFile } from './attachments.ts';
export { mediaRoutes } from './media.routes.ts';
