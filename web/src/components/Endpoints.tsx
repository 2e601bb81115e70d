// Settings › Agent › Model endpoints: the model servers the user runs (Ollama, llama.cpp, vLLM, LM Studio, a
// gateway) — each with its probe's verdict, a button to probe it again with each step's result, and one to remove
// it (asked first) — and a form to add one. Their models then appear in the provider picker as
// `<endpoint>/<model>` under the providers that speak their API (docs/models.md). It sits inside the settings form,
// so its buttons never submit it and Enter in its fields adds the endpoint instead.
import { useEffect, useState } from 'preact/hooks';
import { Badge, Button, ConfirmDialog, Field } from '../../ui/components.tsx';
import { ApiError, del, errorText, get, post } from '../api.ts';
import { loadRegistry } from '../actions.ts';
import { toast } from '../store.ts';
import { ENDPOINT_APIS, ENDPOINT_PROVIDERS, type EndpointApi } from '../../../src/protocol/models-text.ts';
import type { ModelEndpoint, ProbeResult } from '../../../src/protocol/models.ts';
import './endpoints.css';

const API_LABELS: Record<EndpointApi, string> = { 'openai-chat': 'OpenAI Chat Completions', 'openai-responses': 'OpenAI Responses', anthropic: 'Anthropic Messages' };
const EMPTY = { id: '', name: '', baseUrl: '', api: 'openai-chat' as EndpointApi, apiKey: '', models: '' };

/** The probe in a few words, for the endpoint's row. */
function verdict(probe: ProbeResult | null): { tone: 'ok' | 'warn' | 'danger' | 'neutral'; text: string } {
  if (!probe) return { tone: 'neutral', text: 'not probed' };
  if (!probe.models.ok && !probe.answer.ok) return { tone: 'danger', text: 'not answering' };
  if (!probe.tools.ok) return { tone: 'warn', text: 'no tool calls' };
  if (probe.warnings.length) return { tone: 'warn', text: 'works, with warnings' };
  return { tone: 'ok', text: 'works with tools' };
}

function ProbeSteps({ probe }: { probe: ProbeResult }) {
  const steps: [string, { ok: boolean; ms: number; detail: string }][] = [
    ['Models', probe.models],
    ['Answer', probe.answer],
    ['Tool call', probe.tools],
    ['Context', probe.context],
  ];
  return (
    <div class="probe-result">
      <ul class="probe-steps">
        {steps.map(([name, step]) => (
          <li key={name} data-ok={String(step.ok)}>
            <strong>{name}</strong> {step.ok ? '✓' : '✗'} <span class="muted">{step.ms} ms</span>
            <div>{step.detail}</div>
          </li>
        ))}
      </ul>
      {probe.warnings.map((w) => (
        <p key={w} class="form-error" role="status">
          {w}
        </p>
      ))}
    </div>
  );
}

export function Endpoints() {
  const [endpoints, setEndpoints] = useState<ModelEndpoint[] | null>(null);
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [removing, setRemoving] = useState<ModelEndpoint | null>(null);
  const load = () => get<{ endpoints: ModelEndpoint[] }>('/api/models/endpoints').then((r) => setEndpoints(r.endpoints), (err) => setError({ message: errorText(err) }));
  useEffect(() => void load(), []);
  const changed = () => Promise.all([load(), loadRegistry()]);

  const add = async () => {
    setBusy('add');
    setError(null);
    try {
      const models = form.models.split(/[\s,]+/).filter(Boolean);
      await post('/api/models/endpoints', { id: form.id.trim(), name: form.name.trim() || form.id.trim(), baseUrl: form.baseUrl.trim(), api: form.api, ...(form.apiKey ? { apiKey: form.apiKey } : {}), ...(models.length ? { models } : {}) });
      toast(`Endpoint ${form.id} added: probe it to see what it can do.`, 'info');
      setForm(EMPTY);
      await changed();
    } catch (err) {
      const field = err instanceof ApiError && typeof err.body?.field === 'string' ? err.body.field : undefined;
      setError({ message: errorText(err), ...(field ? { field } : {}) });
    } finally {
      setBusy(null);
    }
  };
  const probe = async (e: ModelEndpoint) => {
    setBusy(`probe-${e.id}`);
    try {
      await post(`/api/models/endpoints/${encodeURIComponent(e.id)}/probe`);
      await changed();
    } catch (err) {
      toast(`The probe of ${e.id} failed: ${errorText(err)}`, 'error');
    } finally {
      setBusy(null);
    }
  };
  const remove = async (e: ModelEndpoint) => {
    setRemoving(null);
    try {
      await del(`/api/models/endpoints/${encodeURIComponent(e.id)}`);
      toast(`Endpoint ${e.id} removed.`, 'info');
      await changed();
    } catch (err) {
      toast(errorText(err), 'error');
    }
  };
  // Enter in the form's fields adds the endpoint (the settings form around it must not be submitted)
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    void add();
  };
  const set = (key: keyof typeof EMPTY) => (e: Event) => setForm({ ...form, [key]: (e.target as HTMLInputElement).value });
  const fieldError = (field: string) => (error?.field?.split('.')[0] === field ? error.message : null);

  return (
    <section class="endpoints" aria-labelledby="endpoints-title" data-endpoints={endpoints ? 'ready' : 'loading'}>
      <h3 id="endpoints-title">Model endpoints</h3>
      <p class="section-help">
        Model servers you run (Ollama, llama.cpp, vLLM, LM Studio, a gateway). Their models appear in the agent picker as
        endpoint/model under the providers that speak their API.
      </p>
      {endpoints?.length === 0 && <p class="muted">None yet.</p>}
      <ul class="endpoint-list">
        {endpoints?.map((e) => {
          const v = verdict(e.probe);
          return (
            <li key={e.id} data-endpoint={e.id}>
              <div class="endpoint-head">
                <strong>{e.name}</strong> <code>{e.id}</code> <Badge tone={v.tone}>{v.text}</Badge>
              </div>
              <div class="muted">
                {API_LABELS[e.api]} at <code>{e.baseUrl}</code>, for {ENDPOINT_PROVIDERS[e.api].join(', ')}
                {e.hasKey ? ' · key kept' : e.apiKeyEnv ? ` · key from $${e.apiKeyEnv}` : ''}
              </div>
              {e.probe && <ProbeSteps probe={e.probe} />}
              <div class="endpoint-actions">
                <Button type="button" small disabled={busy !== null} onClick={() => void probe(e)}>
                  {busy === `probe-${e.id}` ? 'Probing…' : e.probe ? 'Probe again' : 'Probe'}
                </Button>
                <Button type="button" small variant="ghost" disabled={busy !== null} onClick={() => setRemoving(e)}>
                  Remove
                </Button>
              </div>
            </li>
          );
        })}
      </ul>
      <div class="endpoint-form" role="group" aria-labelledby="endpoint-add-title" onKeyDown={onKey}>
        <h4 id="endpoint-add-title">Add an endpoint</h4>
        <Field id="endpoint-id" label="Id" help="a-z, 0-9 and -: models are named id/model" error={fieldError('id')}>
          {(c) => <input {...c} value={form.id} onInput={set('id')} autocomplete="off" spellcheck={false} />}
        </Field>
        <Field id="endpoint-name" label="Name" error={fieldError('name')}>
          {(c) => <input {...c} value={form.name} onInput={set('name')} autocomplete="off" />}
        </Field>
        <Field id="endpoint-url" label="Base URL" help="OpenAI APIs with /v1 (http://127.0.0.1:11434/v1); Anthropic's: the server's root" error={fieldError('baseUrl')}>
          {(c) => <input {...c} type="url" value={form.baseUrl} onInput={set('baseUrl')} autocomplete="off" spellcheck={false} />}
        </Field>
        <Field id="endpoint-api" label="API" error={fieldError('api')}>
          {(c) => (
            <select {...c} value={form.api} onChange={set('api')}>
              {ENDPOINT_APIS.map((a) => (
                <option key={a} value={a}>
                  {API_LABELS[a]} ({ENDPOINT_PROVIDERS[a].join(', ')})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="endpoint-key" label="Key" help="if the server needs one; kept by svc, never shown again" error={fieldError('apiKey')}>
          {(c) => <input {...c} type="password" value={form.apiKey} onInput={set('apiKey')} autocomplete="new-password" />}
        </Field>
        <Field id="endpoint-models" label="Models" help="comma-separated; empty: those the server lists" error={fieldError('models')}>
          {(c) => <input {...c} value={form.models} onInput={set('models')} autocomplete="off" spellcheck={false} />}
        </Field>
        {error && !error.field && (
          <p class="form-error" role="alert">
            {error.message}
          </p>
        )}
        <Button type="button" small variant="primary" disabled={busy !== null || !form.id || !form.baseUrl} onClick={() => void add()}>
          {busy === 'add' ? 'Adding…' : 'Add endpoint'}
        </Button>
      </div>
      <ConfirmDialog open={removing !== null} title={`Remove the endpoint ${removing?.id ?? ''}?`} confirmLabel="Remove" danger onConfirm={() => removing && void remove(removing)} onCancel={() => setRemoving(null)}>
        Its key goes with it. Runs that name its models will not start.
      </ConfirmDialog>
    </section>
  );
}
