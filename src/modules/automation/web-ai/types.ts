// Wire types of the web-ai skill: request bodies and answers (zod, so the core server, the browser server,
// the slash command and the CLI validate the same shapes), and WebAiApi, what the routes act through.
// No playwright import here: the core server and the CLI load this without loading a browser driver.
import { z } from 'zod';
import { DEFAULT_ANSWER_TIMEOUT_MS } from './limits.ts';

/** A vendor id: `chatgpt`, `gemini`, `claude`, `grok`, `generic`, or one the user's profile file adds. */
export const VENDOR_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;
export const VendorId = z.string().trim().regex(VENDOR_ID, 'a vendor id is lowercase letters, digits, - and _ (see GET /api/browser/web-ai/profiles)');
export const SessionId = z.string().trim().regex(/^wa_[A-Za-z0-9_-]{4,40}$/, 'a web-ai session id looks like wa_x1Y2z3 (see GET /api/browser/web-ai/sessions)');
const TabId = z.string().trim().regex(/^t\d{1,9}$/, 'a tab id looks like t1 (see GET /api/browser/tabs)');

/** Longest wait for an answer (ms): thinking models can take many minutes. */
export const MAX_WAIT_MS = 1_800_000;

const prompt = z.string().min(1, 'prompt is empty').max(200_000);
const files = z
  .array(z.string().trim().min(1, 'a file path is empty').max(4096))
  .max(20)
  .optional()
  .describe('Files to attach: paths inside the working directory (or the media directory) on the core server; absolute paths on the browser server.');
const timeout = z.number().int().min(0).max(MAX_WAIT_MS).optional();

export const SendBody = z.strictObject({
  vendor: VendorId,
  prompt,
  files,
  /** Start a new conversation (open the profile's URL) instead of continuing the one in the vendor's tab. */
  newChat: z.boolean().optional(),
});
export type SendBody = z.infer<typeof SendBody>;

export const QueryBody = SendBody.extend({ timeout: timeout.describe(`How long to wait for the answer (ms, default ${DEFAULT_ANSWER_TIMEOUT_MS}).`) });
export type QueryBody = z.infer<typeof QueryBody>;

const saving = {
  saveTo: z.string().trim().min(1).max(4096).optional().describe('A directory inside the working directory to write the code blocks into.'),
  overwrite: z.boolean().optional().describe('Replace files that exist (default: refuse, and write nothing).'),
};

export const CodeBody = QueryBody.extend(saving);
export type CodeBody = z.infer<typeof CodeBody>;

export const PollQuery = z.object({
  sessionId: SessionId,
  timeout: z.coerce.number().int().min(0).max(MAX_WAIT_MS).optional().describe('Wait up to this long (ms) for the answer to complete; default 0: answer at once.'),
});
export type PollQuery = z.infer<typeof PollQuery>;

export const StopBody = z.strictObject({ sessionId: SessionId.optional(), vendor: VendorId.optional() });
export type StopBody = z.infer<typeof StopBody>;

export const StatusQuery = z.object({ vendor: VendorId });

export const ExtractBody = z
  .strictObject({ sessionId: SessionId.optional(), tab: TabId.optional(), vendor: VendorId.optional(), ...saving })
  .refine((b) => !(b.sessionId && (b.tab || b.vendor)), { message: 'give a sessionId, or a tab and/or vendor, not both' });
export type ExtractBody = z.infer<typeof ExtractBody>;

// ---- answers ---------------------------------------------------------------------------------------

export const ANSWER_STATES = ['streaming', 'complete', 'stopped'] as const;
export type AnswerState = (typeof ANSWER_STATES)[number];

export const SendResultSchema = z.object({ sessionId: z.string(), vendor: z.string(), tab: z.string(), url: z.string() });
export type SendResult = z.infer<typeof SendResultSchema>;

export const AnswerSchema = z.object({
  sessionId: z.string(),
  vendor: z.string(),
  tab: z.string(),
  state: z.enum(ANSWER_STATES),
  /** The stop button is gone and the text has not changed for the profile's stableMs. */
  complete: z.boolean(),
  /** The answer as the page shows it (its visible text, not markdown). */
  text: z.string(),
  chars: z.number(),
  elapsedMs: z.number(),
});
export type Answer = z.infer<typeof AnswerSchema>;

export const CodeBlockSchema = z.object({
  /** The block's language, lowercased with common aliases joined (`py`, `Python` → `python`); `text` when the page does not say. */
  language: z.string(),
  /** The block's text exactly, without a trailing newline. */
  code: z.string(),
  /** A file name the answer gives for the block (a comment on its first line, or the line before it). */
  filename: z.string().optional(),
});
export type CodeBlock = z.infer<typeof CodeBlockSchema>;

export const SavedFileSchema = z.object({ path: z.string(), bytes: z.number(), language: z.string() });
export type SavedFile = z.infer<typeof SavedFileSchema>;
/** Where the blocks were written (paths relative to the working directory), when saveTo was given. */
const saved = z.array(SavedFileSchema).optional();

export const ExtractResultSchema = z.object({
  vendor: z.string(),
  tab: z.string(),
  sessionId: z.string().optional(),
  blocks: z.array(CodeBlockSchema),
  saved,
});
export type ExtractResult = z.infer<typeof ExtractResultSchema>;

export const CodeResultSchema = AnswerSchema.extend({ blocks: z.array(CodeBlockSchema), saved });
export type CodeResult = z.infer<typeof CodeResultSchema>;

export const StopResultSchema = z.object({
  vendor: z.string(),
  tab: z.string(),
  sessionId: z.string().optional(),
  /** False when nothing was being written (no stop button showed). */
  stopped: z.boolean(),
});
export type StopResult = z.infer<typeof StopResultSchema>;

export const PAGE_STATES = ['ready', 'needs_login', 'captcha', 'unknown_layout'] as const;
export type PageState = (typeof PAGE_STATES)[number];

export const CheckSchema = z.object({
  /** composer, send, stop, answers, attach, login, captcha. */
  check: z.string(),
  found: z.boolean(),
  /** What was looked for: selectors, roles and names, URL and title patterns. */
  tried: z.array(z.string()),
  /** What matched, or how many. */
  detail: z.string().optional(),
});
export type Check = z.infer<typeof CheckSchema>;

export const StatusSchema = z.object({
  vendor: z.string(),
  label: z.string(),
  tab: z.string(),
  url: z.string(),
  title: z.string(),
  state: z.enum(PAGE_STATES),
  /** An answer is being written (the stop button shows). */
  writing: z.boolean(),
  checks: z.array(CheckSchema),
});
export type Status = z.infer<typeof StatusSchema>;

export const SessionInfoSchema = z.object({
  sessionId: z.string(),
  vendor: z.string(),
  tab: z.string(),
  state: z.enum(ANSWER_STATES),
  prompt: z.string(),
  chars: z.number(),
  startedAt: z.number(),
  updatedAt: z.number(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;
export const SessionsSchema = z.object({ sessions: z.array(SessionInfoSchema) });
export type Sessions = z.infer<typeof SessionsSchema>;

export const ProfileInfoSchema = z.object({
  id: z.string(),
  label: z.string(),
  url: z.string().optional(),
  /** builtin, override (a built-in changed by the user's file) or user (added by it). */
  source: z.enum(['builtin', 'override', 'user']),
});
export const ProfilesSchema = z.object({ file: z.string(), profiles: z.array(ProfileInfoSchema) });
export type Profiles = z.infer<typeof ProfilesSchema>;

/** What the routes act through: the driver on the browser server, a client of it plus the working directory on the core. */
export interface WebAiApi {
  send(body: SendBody): Promise<SendResult>;
  poll(query: PollQuery): Promise<Answer>;
  query(body: QueryBody): Promise<Answer>;
  code(body: CodeBody): Promise<CodeResult>;
  extract(body: ExtractBody): Promise<ExtractResult>;
  stop(body: StopBody): Promise<StopResult>;
  status(vendor: string): Promise<Status>;
  sessions(): Promise<Sessions>;
  profiles(): Promise<Profiles>;
}
