// A probe of a model server: is it there and which models does it list, does a model answer (and how soon), does
// a tool call come back and get answered, and how much context does it run with. Each step is timed and says
// what it found in a sentence; a server that does not answer is said so within REACH_MS, and the rest skipped.
import { MIN_AGENT_CONTEXT, type EndpointApi, type ProbeResult, type ProbeStep } from '../../protocol/models.ts';
import {
  answerRequest,
  answerText,
  apiPaths,
  authHeaders,
  contextFrom,
  modelIds,
  PROBE_TOOL,
  serverRoot,
  sseData,
  streamedText,
  toolCallIn,
  toolRequest,
  toolResultRequest,
} from './probe-wire.ts';

export interface ProbeTarget {
  api: EndpointApi;
  baseUrl: string;
  key: string | undefined;
  /** The endpoint's own model list (its first is the one probed); empty: the server's. */
  models: string[];
  /** The endpoint's context size, used when the server says none. */
  contextSize: number | null;
}

export interface ProbeTimes {
  /** How long the server may take to answer a request that needs no model (the list, its properties). */
  reachMs: number;
  /** How long a model may take to answer (a local model may first have to load). */
  answerMs: number;
}

export const PROBE_TIMES: ProbeTimes = { reachMs: 4_000, answerMs: 60_000 };

class StepError extends Error {}

/** Why a request failed, in words: refused, not answering in time, or the server's own status and message. */
function reasonOf(err: unknown, ms: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${Math.round(ms / 1000)} s`;
  if (e?.cause?.code === 'ECONNREFUSED') return 'the connection was refused (is the server running on that port?)';
  if (e?.cause?.code === 'ENOTFOUND') return 'the host name was not found';
  if (err instanceof StepError) return err.message;
  return e?.cause?.message ?? e?.message ?? String(err);
}

async function call(url: string, init: { method: string; headers: Record<string, string>; body?: unknown }, ms: number): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: init.method,
    headers: init.headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: AbortSignal.timeout(ms),
    redirect: 'error',
  });
  const text = await response.text();
  return { status: response.status, text };
}

async function json(url: string, init: { method: string; headers: Record<string, string>; body?: unknown }, ms: number): Promise<unknown> {
  const { status, text } = await call(url, init, ms);
  if (status < 200 || status >= 300) throw new StepError(`HTTP ${status}${text ? `: ${text.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new StepError('the answer is not JSON');
  }
}

const timed = async <T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> => {
  const started = performance.now();
  try {
    const value = await work();
    return { value, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { error, ms: Math.round(performance.now() - started) };
  }
};

const skipped = (why: string): ProbeStep => ({ ok: false, ms: 0, detail: `not tried: ${why}` });

export async function probeEndpoint(t: ProbeTarget, times: ProbeTimes = PROBE_TIMES, now: () => number = Date.now): Promise<ProbeResult> {
  const at = now();
  const headers = authHeaders(t.api, t.key);
  const paths = apiPaths(t.api, t.baseUrl);
  const root = serverRoot(t.baseUrl);
  const warnings: string[] = [];

  // 1. the models it lists (OpenAI's and Anthropic's /v1/models, else Ollama's /api/tags)
  let listBody: unknown;
  const listed = await timed(async () => {
    try {
      listBody = await json(paths.models, { method: 'GET', headers }, times.reachMs);
    } catch (err) {
      if (!(err instanceof StepError)) throw err;
      listBody = await json(`${root}/api/tags`, { method: 'GET', headers }, times.reachMs).catch(() => {
        throw err;
      });
    }
    return modelIds(listBody);
  });
  const ids = listed.value ?? [];
  const models = { ok: listed.error === undefined, ms: listed.ms, ids, detail: listed.error === undefined ? (ids.length ? `${ids.length} model(s): ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}` : 'it lists no model') : `no model list: ${reasonOf(listed.error, times.reachMs)}` };
  const unreachable = listed.error !== undefined && !(listed.error instanceof StepError);
  const model = t.models[0] ?? ids[0] ?? null;
  if (unreachable) {
    const why = `the server did not answer (${models.detail.replace(/^no model list: /, '')})`;
    return { at, model, models, answer: { ...skipped(why), firstTokenMs: null }, tools: skipped(why), context: { ...skipped(why), tokens: null }, warnings: [`${t.baseUrl} did not answer: check that the server runs and the URL.`] };
  }
  if (!model) {
    const why = 'no model to ask: name one in the endpoint\'s models';
    warnings.push('The server lists no model: add the model ids to the endpoint.');
    return { at, model, models, answer: { ...skipped(why), firstTokenMs: null }, tools: skipped(why), context: await contextStep(), warnings };
  }

  // 2. a short streamed answer, with the time to its first token
  let firstTokenMs: number | null = null;
  const answered = await timed(async () => {
    const started = performance.now();
    const response = await fetch(paths.call, { method: 'POST', headers, body: JSON.stringify(answerRequest(t.api, model)), signal: AbortSignal.timeout(times.answerMs), redirect: 'error' });
    if (!response.ok) throw new StepError(`HTTP ${response.status}: ${(await response.text()).replace(/\s+/g, ' ').slice(0, 200)}`);
    let text = '';
    let buffered = '';
    for await (const chunk of response.body!) {
      buffered += Buffer.from(chunk as Uint8Array).toString('utf8');
      const cut = buffered.lastIndexOf('\n');
      if (cut < 0) continue;
      for (const event of sseData(buffered.slice(0, cut))) {
        const piece = streamedText(t.api, event);
        if (piece && firstTokenMs === null) firstTokenMs = Math.round(performance.now() - started);
        text += piece;
      }
      buffered = buffered.slice(cut + 1);
    }
    for (const event of sseData(buffered)) text += streamedText(t.api, event);
    if (!text.trim()) throw new StepError('the stream carried no text');
    return text.trim();
  });
  const answer = { ok: answered.error === undefined, ms: answered.ms, firstTokenMs, detail: answered.error === undefined ? `${model} answered "${String(answered.value).slice(0, 80)}" (first token after ${firstTokenMs} ms)` : `${model} did not answer: ${reasonOf(answered.error, times.answerMs)}` };

  // 3. one tool call: offered, called, its result sent back, answered; not tried when the model did not answer in
  // time (two more calls would each wait as long: the probe stays bounded by one model wait)
  const timedOut = answered.error !== undefined && ['TimeoutError', 'AbortError'].includes((answered.error as Error).name);
  const tooled = timedOut ? { error: new StepError(`not tried: ${model} did not answer within ${Math.round(times.answerMs / 1000)} s`), ms: 0 } : await timed(async () => {
    const first = toolRequest(t.api, model);
    const reply = await json(paths.call, { method: 'POST', headers, body: first }, times.answerMs);
    const toolCall = toolCallIn(t.api, reply);
    if (!toolCall) throw new StepError(`no call of ${PROBE_TOOL} came back${answerText(t.api, reply) ? ` (it answered in text: "${answerText(t.api, reply).slice(0, 80)}")` : ''}`);
    const after = await json(paths.call, { method: 'POST', headers, body: toolResultRequest(t.api, model, first, reply, toolCall) }, times.answerMs);
    const text = answerText(t.api, after);
    if (!text.trim()) throw new StepError('the model called the tool but said nothing after its result');
    return `${model} called ${PROBE_TOOL}(${JSON.stringify(toolCall.args)}) and answered after its result: "${text.trim().slice(0, 80)}"`;
  });
  const tools = { ok: tooled.error === undefined, ms: tooled.ms, detail: tooled.error === undefined ? String(tooled.value) : reasonOf(tooled.error, times.answerMs) };
  if (timedOut) warnings.push(`${model} did not answer within ${Math.round(times.answerMs / 1000)} s: a server may still be loading it. Probe again in a moment.`);
  else if (!tools.ok) warnings.push('Tool calls do not work here, so agents cannot act (a read-only chat still can). Use a model with tool support (e.g. qwen3-coder on Ollama), and start llama.cpp\'s server with --jinja.');

  const context = await contextStep();
  return { at, model, models, answer, tools, context, warnings };

  /** 4. the context it runs with: vLLM's models list, llama.cpp's /props, Ollama's /api/show, else the endpoint's own. */
  async function contextStep(): Promise<ProbeResult['context']> {
    const found = await timed(async () => {
      const fromList = contextFrom('vllm', listBody, model ?? undefined);
      if (fromList) return { tokens: fromList, source: 'the models list (vLLM)', ollama: false };
      const props = await json(`${root}/props`, { method: 'GET', headers }, times.reachMs).catch(() => undefined);
      const fromProps = props === undefined ? undefined : contextFrom('llamacpp', props);
      if (fromProps) return { tokens: fromProps, source: 'its /props (llama.cpp)', ollama: false };
      const show = model ? await json(`${root}/api/show`, { method: 'POST', headers, body: { model } }, times.reachMs).catch(() => undefined) : undefined;
      return { tokens: show === undefined ? undefined : contextFrom('ollama', show), source: 'its /api/show (Ollama)', ollama: show !== undefined };
    });
    const said = found.value;
    const tokens = said?.tokens ?? t.contextSize ?? null;
    const source = said?.tokens ? said.source : t.contextSize ? 'the endpoint\'s setting' : undefined;
    const raise = said?.ollama ? ' Raise it on Ollama: OLLAMA_CONTEXT_LENGTH=32768 for the server, or PARAMETER num_ctx 32768 in the model\'s Modelfile.' : ' Raise it on the server (llama.cpp: -c 32768; vLLM: --max-model-len 32768).';
    if (tokens !== null && tokens < MIN_AGENT_CONTEXT) warnings.push(`The context is ${tokens} tokens: an agent's tools and files need at least ${MIN_AGENT_CONTEXT}, or its tool calls get cut off.${raise}`);
    if (tokens === null && said?.ollama) warnings.push(`Ollama runs this model with its default context (4k on older versions) unless it is raised, and cuts what does not fit.${raise}`);
    return {
      ok: tokens !== null,
      ms: found.ms,
      tokens,
      detail: tokens !== null ? `${tokens} tokens (${source})` : 'the server does not say: set the endpoint\'s context size',
    };
  }
}

