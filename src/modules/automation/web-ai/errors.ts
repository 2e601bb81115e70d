// web-ai failures as AppErrors with messages that say what to do next. A login wall or a captcha is never
// worked around: the user logs in (or solves it) in a headed browser; svc never handles their credentials.
import { AppError } from '../../../core/errors.ts';
import type { Check } from './types.ts';

const HEADED = 'open the browser headed (POST /api/browser/start {"headless":false}, or `svc browser serve --headed`)';

export const webAiErrors = {
  needsLogin: (label: string, url: string, matched: string) =>
    new AppError(
      409,
      'NEEDS_LOGIN',
      `${label} wants you to log in (${url}; seen: ${matched}). svc never handles your credentials: ${HEADED}, log in to ${label} in its tab yourself, then try again.`,
      { url },
    ),
  captcha: (label: string, url: string, matched: string) =>
    new AppError(
      409,
      'CAPTCHA',
      `${label} shows a captcha or bot check (${url}; seen: ${matched}). svc does not solve these: ${HEADED}, complete it in ${label}'s tab yourself, then try again.`,
      { url },
    ),
  layoutUnknown: (id: string, label: string, url: string, missing: Check[], file: string) =>
    new AppError(
      502,
      'WEB_AI_LAYOUT_UNKNOWN',
      `${label} (${url}) does not look the way its profile says: ${missing.map((c) => `no ${c.check} found (tried ${c.tried.join(', ')})`).join('; ')}. If the site changed, override profiles.${id}.${missing[0]?.check === 'answers' ? 'answer' : (missing[0]?.check ?? 'composer')} in ${file}; GET /api/browser/web-ai/status?vendor=${id} shows every check.`,
      { vendor: id, url, missing: missing.map((c) => c.check) },
    ),
  unknownVendor: (vendor: string, known: string[]) =>
    new AppError(404, 'WEB_AI_UNKNOWN_VENDOR', `No web-ai profile '${vendor}'. Known: ${known.join(', ')}. Add one in web-ai-profiles.json in the svc home directory.`, { vendor }),
  noUrl: (id: string, file: string) =>
    new AppError(400, 'WEB_AI_NO_URL', `The profile '${id}' has no url to open. Add a profile with a url to ${file} ({"profiles":{"mychat":{"url":"https://…"}}}), or use code-extract with a tab.`, { vendor: id }),
  busy: (label: string, sessionId?: string) =>
    new AppError(
      409,
      'WEB_AI_BUSY',
      `${label} is still writing an answer${sessionId ? ` (session ${sessionId})` : ''}. Wait for it (poll), or stop it (POST /api/browser/web-ai/stop), then send again.`,
      sessionId ? { sessionId } : undefined,
    ),
  sendFailed: (label: string, why: string) =>
    new AppError(502, 'WEB_AI_SEND_FAILED', `The prompt was not sent to ${label}: ${why}. Check the page (GET /api/browser/web-ai/status) and try again.`),
  noAttach: (id: string) =>
    new AppError(400, 'WEB_AI_NO_ATTACH', `The profile '${id}' says nothing about attaching files (attach). Send without files, or add profiles.${id}.attach to your profile file.`, { vendor: id }),
  sessionNotFound: (id: string) =>
    new AppError(404, 'WEB_AI_SESSION_NOT_FOUND', `No web-ai session '${id}' (sessions live as long as the browser server; see GET /api/browser/web-ai/sessions).`, { sessionId: id }),
  sessionLost: (id: string) =>
    new AppError(409, 'WEB_AI_SESSION_LOST', `The tab of web-ai session ${id} was closed or navigated away; its answer can no longer be read. Send the prompt again.`, { sessionId: id }),
  noAnswer: (label: string, tried: string[]) =>
    new AppError(404, 'WEB_AI_NO_ANSWER', `Found no assistant message on the ${label} page (tried ${tried.join(', ')}).`),
  noTab: (label: string) => new AppError(404, 'WEB_AI_NO_TAB', `No ${label} tab is open. Send it a prompt first, or name a tab.`),
  timeout: (label: string, ms: number, sessionId: string, chars: number) =>
    new AppError(
      504,
      'TIMEOUT',
      `${label} did not finish its answer within ${ms} ms (${chars} characters so far). It goes on in its tab: poll session ${sessionId} (\`svc web-ai poll ${sessionId} --timeout 60000\`) or stop it.`,
      { sessionId, timeoutMs: ms },
    ),
  fileNotFound: (path: string) => new AppError(404, 'WEB_AI_FILE_NOT_FOUND', `No file '${path}' to attach.`, { path }),
  notAFile: (path: string) => new AppError(400, 'WEB_AI_FILE_NOT_FOUND', `'${path}' is not a regular file; only files can be attached.`, { path }),
  outside: (what: string, path: string, root: string) =>
    new AppError(400, 'OUTSIDE_WORKING_DIR', `${what} '${path}' is outside the working directory (${root}) once links are resolved. Use a path inside it.`, { path }),
  fileExists: (paths: string[]) =>
    new AppError(
      409,
      'FILE_EXISTS',
      `${paths.length === 1 ? `${paths[0]} exists` : `These files exist: ${paths.join(', ')}`}; nothing was written. Pass overwrite: true (--overwrite) to replace them, or choose another directory.`,
      { files: paths },
    ),
  symlink: (path: string) =>
    new AppError(400, 'OUTSIDE_WORKING_DIR', `${path} is a symbolic link; svc does not write through links. Remove it or choose another directory.`, { path }),
  absoluteFilesOnly: () =>
    new AppError(400, 'VALIDATION_FAILED', 'On the browser server, files are absolute paths (the core server resolves them inside its working directory).', { field: 'files' }),
  saveOnCore: () =>
    new AppError(400, 'VALIDATION_FAILED', 'saveTo is handled by the core server (svc serve), which knows the working directory; ask it instead.', { field: 'saveTo' }),
};
