// The address of an endpoint a settings section points at (a model, a transcription server, a bot
// API): an http(s) URL of at most 2048 characters; some sections also take '' for "not set".
import { z } from 'zod';

const isHttpUrl = (value: string): boolean => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

/** An http(s) URL; `example` goes into the error message. */
export const httpUrlSetting = (example?: string) =>
  z.string().trim().max(2048).refine(isHttpUrl, `must be an http(s) URL${example ? `, e.g. ${example}` : ''}`);

/** An http(s) URL, or '' for "not set". */
export const httpUrlOrEmptySetting = (example: string) =>
  z.string().trim().max(2048).refine((v) => v === '' || isHttpUrl(v), `must be '' or an http(s) URL, e.g. ${example}`);
