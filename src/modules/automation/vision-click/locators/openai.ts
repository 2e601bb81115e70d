// An OpenAI-compatible vision endpoint: POST {baseUrl}/chat/completions with the screenshot as an
// `image_url` data-URL content part. Covers Ollama (http://127.0.0.1:11434/v1), vLLM, LM Studio,
// llama.cpp's server and hosted APIs. The request building and the reply reading are pure functions.
import { AppError } from '../../../../core/errors.ts';
import {
  buildDescribePrompt,
  buildLocatePrompt,
  DESCRIBE_SYSTEM_PROMPT,
  LOCATE_SYSTEM_PROMPT,
  parseDescribeAnswer,
  parseLocateAnswer,
} from '../answer.ts';
import type { DescribeInput, LocateAnswer, LocateInput, Locator } from '../types.ts';

export interface OpenAiConfig {
  baseUrl: string;
  model: string;
  apiKey: string;
  timeoutMs: number;
  /** Cap on the answer's tokens (default 400 for locate, 600 for describe). */
  maxTokens?: number;
}

export interface ChatRequest {
  url: string;
  headers: Record<string, string>;
  body: {
    model: string;
    messages: { role: 'system' | 'user'; content: string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[] }[];
    temperature: number;
    max_tokens: number;
    stream: false;
  };
}

/** `{baseUrl}/chat/completions` (a baseUrl that already ends with it is used as is). */
export function chatCompletionsUrl(baseUrl: string): string {
  const b = baseUrl.trim().replace(/\/+$/, '');
  return /\/chat\/completions$/.test(b) ? b : `${b}/chat/completions`;
}

export function buildChatRequest(cfg: OpenAiConfig, system: string, prompt: string, png: Buffer, maxTokens: number): ChatRequest {
  if (!cfg.model) {
    throw new AppError(400, 'VISION_NOT_CONFIGURED', 'The openai locator needs a model: set vision.model (and vision.baseUrl) in the settings, e.g. qwen2.5vl for Ollama.');
  }
  return {
    url: chatCompletionsUrl(cfg.baseUrl),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
    },
    body: {
      model: cfg.model,
      messages: [
        { role: 'system', content: system },
        {
          role: 'user',
          content: [
            { type: 'text', text: prompt },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
          ],
        },
      ],
      temperature: 0,
      max_tokens: cfg.maxTokens ?? maxTokens,
      stream: false,
    },
  };
}

/** The assistant's text from a chat completion (string content, or text parts joined). */
export function chatAnswerText(reply: unknown): string {
  const r = reply as { choices?: { message?: { content?: unknown; refusal?: unknown } }[]; error?: { message?: unknown } } | null;
  const msg = r?.choices?.[0]?.message;
  const content = msg?.content;
  if (typeof content === 'string' && content.trim()) return content;
  if (Array.isArray(content)) {
    const text = content
      .map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .join('');
    if (text.trim()) return text;
  }
  if (typeof msg?.refusal === 'string' && msg.refusal) throw new AppError(502, 'VISION_MODEL_ERROR', `The vision model refused: ${msg.refusal.slice(0, 300)}`);
  if (typeof r?.error?.message === 'string') throw new AppError(502, 'VISION_MODEL_ERROR', `The vision endpoint answered an error: ${r.error.message.slice(0, 300)}`);
  throw new AppError(502, 'VISION_BAD_ANSWER', 'The vision endpoint answered without any message text (choices[0].message.content).');
}

const redact = (text: string, secret: string) => (secret ? text.split(secret).join('***') : text);

export class OpenAiLocator implements Locator {
  readonly kind = 'openai' as const;
  constructor(
    private readonly config: () => OpenAiConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async complete(system: string, prompt: string, png: Buffer, maxTokens: number): Promise<string> {
    const cfg = this.config();
    const req = buildChatRequest(cfg, system, prompt, png, maxTokens);
    let res: Response;
    try {
      res = await this.fetchImpl(req.url, {
        method: 'POST',
        headers: req.headers,
        body: JSON.stringify(req.body),
        signal: AbortSignal.timeout(cfg.timeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError') {
        throw new AppError(504, 'VISION_MODEL_TIMEOUT', `The vision endpoint ${req.url} did not answer within ${cfg.timeoutMs} ms (vision.timeoutSec).`);
      }
      throw new AppError(503, 'VISION_MODEL_UNREACHABLE', `Could not reach the vision endpoint ${req.url} (${e.cause?.code ?? e.message}). Is the server running, and is vision.baseUrl right?`);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      throw new AppError(502, 'VISION_MODEL_ERROR', `The vision endpoint answered HTTP ${res.status}: ${redact(text, cfg.apiKey).slice(0, 300)}`, { upstreamStatus: res.status });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new AppError(502, 'VISION_BAD_ANSWER', `The vision endpoint answered something that is not JSON: ${text.slice(0, 200)}`);
    }
    return chatAnswerText(json);
  }

  async locate(input: LocateInput): Promise<LocateAnswer> {
    const size = { width: input.width, height: input.height };
    const text = await this.complete(LOCATE_SYSTEM_PROMPT, buildLocatePrompt(input.description, size), input.png, 400);
    return parseLocateAnswer(text, size);
  }

  async describe(input: DescribeInput): Promise<string> {
    const text = await this.complete(DESCRIBE_SYSTEM_PROMPT, buildDescribePrompt({ width: input.width, height: input.height }, input.focus), input.png, 600);
    return parseDescribeAnswer(text);
  }
}
