// The web-ai routes. The same declarations serve both servers: the browser server mounts them over the
// driver, the core server over WebAiService (a client of the driver plus the working directory), so an
// answer and its errors keep their shape from the page to the caller. A login wall or a captcha is a
// 409 NEEDS_LOGIN / CAPTCHA; a page that does not match its profile a 502 WEB_AI_LAYOUT_UNKNOWN naming
// what was not found.
import { routeGroup, route } from '../../../http/routes.ts';
import { BROWSER_ERRORS } from '../browser/index.ts';
import {
  AnswerSchema,
  CodeBody,
  CodeResultSchema,
  ExtractBody,
  ExtractResultSchema,
  PollQuery,
  ProfilesSchema,
  QueryBody,
  SendBody,
  SendResultSchema,
  SessionsSchema,
  StatusQuery,
  StatusSchema,
  StopBody,
  StopResultSchema,
  type WebAiApi,
} from './types.ts';

export const webAiRoutes = routeGroup('web-ai', ({ api }: { api: WebAiApi }) => {
  return [
    route({
      method: 'POST',
      url: '/api/browser/web-ai/send',
      errors: BROWSER_ERRORS,
      summary: 'Types a prompt into a web chat assistant (chatgpt, gemini, claude, grok, …) in the controlled browser and sends it; answers with the session to poll.',
      body: SendBody,
      response: SendResultSchema,
      handler: ({ body }) => api.send(body),
    }),
    route({
      method: 'GET',
      url: '/api/browser/web-ai/poll',
      errors: BROWSER_ERRORS,
      summary: 'The answer of a web-ai session so far and whether it is complete; `timeout` waits up to that long for it to complete.',
      query: PollQuery,
      response: AnswerSchema,
      handler: ({ query }) => api.poll(query),
    }),
    route({
      method: 'POST',
      url: '/api/browser/web-ai/query',
      errors: BROWSER_ERRORS,
      summary: 'Sends a prompt and waits for the whole answer (504 with the session id when it takes longer than `timeout`).',
      body: QueryBody,
      response: AnswerSchema,
      handler: ({ body }) => api.query(body),
    }),
    route({
      method: 'POST',
      url: '/api/browser/web-ai/stop',
      errors: BROWSER_ERRORS,
      summary: 'Presses the stop button of an answer being written (a session\'s, or the vendor\'s latest).',
      body: StopBody,
      response: StopResultSchema,
      handler: ({ body }) => api.stop(body),
    }),
    route({
      method: 'GET',
      url: '/api/browser/web-ai/status',
      errors: BROWSER_ERRORS,
      summary: 'Whether a vendor\'s page is ready, needs a login, shows a captcha or has an unknown layout, with every check made.',
      query: StatusQuery,
      response: StatusSchema,
      handler: ({ query }) => api.status(query.vendor),
    }),
    route({
      method: 'GET',
      url: '/api/browser/web-ai/sessions',
      summary: 'The web-ai sessions (one per prompt sent), newest first.',
      response: SessionsSchema,
      handler: () => api.sessions(),
    }),
    route({
      method: 'GET',
      url: '/api/browser/web-ai/profiles',
      summary: 'The vendor profiles in effect: the built-in ones with the user\'s profile file applied.',
      response: ProfilesSchema,
      handler: () => api.profiles(),
    }),
    route({
      method: 'POST',
      url: '/api/browser/web-ai/code',
      errors: BROWSER_ERRORS,
      summary: 'Asks for code and waits: the answer\'s code blocks (language, code, a file name the answer gives), optionally written under a directory of the working directory.',
      body: CodeBody,
      response: CodeResultSchema,
      handler: ({ body }) => api.code(body),
    }),
    route({
      method: 'POST',
      url: '/api/browser/web-ai/code-extract',
      errors: BROWSER_ERRORS,
      summary: 'The code blocks of a session\'s answer, or of the latest answer in a tab, as the page shows them now (optionally saved).',
      body: ExtractBody,
      response: ExtractResultSchema,
      handler: ({ body }) => api.extract(body),
    }),
  ];
});
