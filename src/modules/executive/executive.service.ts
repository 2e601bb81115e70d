// The executive's operations, each also a route (and, later, a tool of the executive agent): inspect
// instances, send a message and watch for its completion, handle completions, and start, stop or
// restart owned instances with a human's confirmation. Every operation leaves an audit record.
import { AppError, badRequest, conflict, notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { Completion, Confirmation, LifecycleAction, Watch } from '../../protocol/executive.ts';
import type { EventBus } from '../../events/bus.ts';
import type { AuditSink } from '../security-audit/index.ts';
import { argsHash, DEFAULT_CONFIRMATION_TTL_MS, MAX_CONFIRMATION_TTL_MS } from './confirmation.ts';
import type { ExecutiveRepo } from './executive.repo.ts';
import type { WorkInput } from '../fleet/index.ts';
import { lostRequests, type DoneRun, type Fleet } from './fleet.ts';
import { planQuery } from './query.ts';
import { runQuery, type QueryResult } from './query-run.ts';
import { editDoc, type DocsOperation } from './docs-write.ts';
import { applySettingsPatch, DEFAULT_CEO_SETTINGS, type CeoSettings, type CeoSettingsPatchSchema } from './settings.ts';
import type { z } from 'zod';

export interface ExecutiveDeps {
  repo: ExecutiveRepo;
  fleet: Fleet;
  bus: EventBus;
  /** The security audit log, where the server has one (a core server). */
  securityAudit?: AuditSink;
  /** svc's own notes (Markdown the executive may edit besides a project's README.md and docs/). */
  notesDir: string;
  /** Whether push-to-talk can transcribe here (the voice module knows; default: the executive's voice settings name an endpoint). */
  voiceConfigured?: () => boolean;
  now?: () => number;
}

/** Runs that ended before their watch was written (a fast run): kept briefly so none is missed. */
const RECENT_DONE = 200;

export class ExecutiveService {
  private readonly now: () => number;
  private readonly recent = new Map<string, DoneRun>();

  constructor(private readonly d: ExecutiveDeps) {
    this.now = d.now ?? Date.now;
  }

  // ── audit and transcript ──

  audit(kind: Parameters<ExecutiveRepo['addAudit']>[0]['kind'], action: string, ok: boolean, message: string, instanceId?: string | null, meta?: Record<string, unknown>) {
    const record = this.d.repo.addAudit({ at: this.now(), kind, action, ok, instanceId, message, meta });
    this.d.bus.publish('ceo_audit', { id: record.id, kind, action, ok });
    this.d.securityAudit?.record({ actor: 'executive', action: `ceo.${action}`, target: instanceId ?? '', outcome: ok ? 'ok' : 'refused', details: { kind, message: message.slice(0, 200) } });
    return record;
  }

  say(role: 'user' | 'executive' | 'instance' | 'system', text: string, instanceId: string | null = null) {
    const entry = this.d.repo.addTranscript({ at: this.now(), role, text, instanceId, untrusted: role === 'instance' });
    this.d.bus.publish('ceo_transcript', { id: entry.id, role, instanceId });
    return entry;
  }

  /** Runs an operation and audits it (its failure too, then rethrows). */
  private async tool<T>(action: string, instanceId: string | null, fn: () => Promise<T> | T, describe: (r: T) => string): Promise<T> {
    try {
      const result = await fn();
      this.audit('tool', action, true, describe(result), instanceId);
      return result;
    } catch (err) {
      this.audit('tool', action, false, (err as Error).message, instanceId);
      throw err;
    }
  }

  // ── the fleet's work queue ──

  queueWork(input: WorkInput) {
    return this.tool('queue_work', null, () => {
      if (!this.d.fleet.queueWork) throw conflict('FLEET_DISABLED', 'Only the dashboard\'s executive queues work for a fleet: this one runs on an instance.');
      return this.d.fleet.queueWork(input);
    }, (r) => `queued work ${r.id}`);
  }

  // ── instances ──

  instances() {
    return this.tool('list_instances', null, () => this.d.fleet.list(), (l) => `${l.length} instance(s)`);
  }

  inspect(id: string) {
    return this.tool('inspect_instance', id, () => this.d.fleet.inspect(id), () => 'inspected');
  }

  // ── dispatch and watches ──

  /** Sends a message to an instance and watches that very request until its run ends. */
  async send(instanceId: string, text: string): Promise<{ requestId: string; watch: Watch }> {
    return this.tool('send_message', instanceId, async () => {
      const { requestId } = await this.d.fleet.send(instanceId, text);
      this.say('system', `Sent to ${instanceId} (request ${requestId}); watching for its completion.`, instanceId);
      const watch = this.addWatch({ instanceId, requestId, reason: 'dispatch' });
      return { requestId, watch };
    }, (r) => `sent request ${r.requestId}`);
  }

  /** A manual watch: the given request, or (without one) the next run of the instance that no other watch claims. */
  watch(instanceId: string, requestId: string | null): Promise<Watch> {
    return this.tool('watch', instanceId, () => {
      this.d.fleet.inspect(instanceId);
      if (requestId && this.d.repo.watches(true).some((w) => w.requestId === requestId)) throw conflict('WATCH_EXISTS', `Request ${requestId} is watched already; see GET /api/svc-ceo/watches.`);
      return this.addWatch({ instanceId, requestId, reason: 'manual' });
    }, (w) => `watch ${w.id}`);
  }

  private addWatch(input: { instanceId: string; requestId: string | null; reason: Watch['reason'] }): Watch {
    const watch = this.d.repo.addWatch({ id: newId('watch'), ...input, status: 'active', createdAt: this.now(), endedAt: null });
    this.d.bus.publish('ceo_watch', { id: watch.id, instanceId: watch.instanceId, status: watch.status });
    const early = input.requestId ? this.recent.get(input.requestId) : undefined;
    if (early) this.runDone(early);
    return this.d.repo.getWatch(watch.id)!;
  }

  watches(all = false): Watch[] {
    return this.d.repo.watches(all);
  }

  removeWatch(id: string): Promise<Watch> {
    return this.tool('remove_watch', null, () => {
      if (!this.d.repo.getWatch(id)) throw notFound('Watch', id);
      if (!this.d.repo.removeWatch(id, this.now())) throw conflict('WATCH_ENDED', `Watch ${id} has ended already.`);
      const watch = this.d.repo.getWatch(id)!;
      this.d.bus.publish('ceo_watch', { id, instanceId: watch.instanceId, status: watch.status });
      return watch;
    }, () => `removed watch ${id}`);
  }

  /**
   * A run of an instance ended (its own `agent_done`, through the bridge). Claimed once by the watch
   * of its request (or a manual watch of that instance); the watch ends with it.
   */
  runDone(run: DoneRun): Completion | undefined {
    this.recent.set(run.requestId, run);
    if (this.recent.size > RECENT_DONE) this.recent.delete(this.recent.keys().next().value!);
    const done = this.d.repo.complete(run, this.now());
    if (!done) return undefined;
    const { completion, watch } = done;
    this.d.bus.publish('ceo_watch', { id: watch.id, instanceId: watch.instanceId, status: watch.status });
    this.d.bus.publish('ceo_completion', { key: completion.key, instanceId: completion.instanceId, watchId: completion.watchId, status: completion.status });
    this.audit('completion', 'detected', true, `${run.instanceId} finished request ${run.requestId} (${run.status})`, run.instanceId, { watchId: watch.id, key: completion.key });
    return completion;
  }

  /**
   * The fallback after a gap in an instance's stream (a manager restart, an instance restart, a replay
   * gap): its saved answers are read once for the requests still watched; then, if the instance has
   * restarted since a watched request was sent and is not running it, that run was lost: its watch
   * ends with a completion of status `lost`, once, so the person hears of it.
   */
  async catchUp(instanceId: string): Promise<number> {
    const watched = () => this.d.repo.watches(false).filter((w) => w.instanceId === instanceId && w.requestId);
    if (!watched().length) return 0;
    let found = 0;
    try {
      const ids = new Set(watched().map((w) => w.requestId));
      for (const run of (await this.d.fleet.finishedRuns?.(instanceId)) ?? []) {
        if (ids.has(run.requestId) && this.runDone(run)) found++;
      }
      const boot = await this.d.fleet.boot?.(instanceId);
      for (const w of boot ? lostRequests(watched(), instanceId, boot) : []) {
        const text = `${instanceId} restarted (at ${new Date(boot!.startedAt).toISOString()}) before request ${w.requestId} finished: its run was lost. Send it again if it is still needed.`;
        if (this.runDone({ instanceId, requestId: w.requestId!, status: 'lost', text })) found++;
      }
    } catch (err) {
      this.audit('completion', 'catch_up', false, `could not read ${instanceId}'s answers: ${(err as Error).message}`, instanceId);
    }
    return found;
  }

  // ── completions ──

  pending(statuses: readonly Completion['status'][] = ['pending']): Completion[] {
    return this.d.repo.completions(statuses);
  }

  private completion(key: string): Completion {
    const c = this.d.repo.getCompletion(key);
    if (!c) throw notFound('Completion', key);
    return c;
  }

  summarize(key: string, format: 'short' | 'detailed'): { completion: Completion; untrustedText: string } {
    const c = this.completion(key);
    this.audit('tool', 'summarize_completion', true, `${format} summary of ${key}`, c.instanceId);
    return { completion: c, untrustedText: format === 'short' ? c.summary : c.text };
  }

  /** Reads the result into the transcript (as instance data); with `text`, also sends a follow-up to the same instance, watched. */
  async continue(key: string, text?: string): Promise<{ completion: Completion; followUp?: { requestId: string; watch: Watch } }> {
    const c = this.completion(key);
    if (c.status !== 'pending') throw conflict('COMPLETION_HANDLED', `Completion ${key} is ${c.status} already.`);
    this.say('instance', c.text, c.instanceId);
    const followUp = text ? await this.send(c.instanceId, text) : undefined;
    this.setStatus(c, 'continued');
    return { completion: this.completion(key), ...(followUp ? { followUp } : {}) };
  }

  mark(key: string, status: 'acknowledged' | 'dismissed'): Completion {
    const c = this.completion(key);
    if (c.status !== 'pending') throw conflict('COMPLETION_HANDLED', `Completion ${key} is ${c.status} already.`);
    this.setStatus(c, status);
    return this.completion(key);
  }

  private setStatus(c: Completion, status: Completion['status']): void {
    this.d.repo.setCompletionStatus(c.key, status);
    this.d.bus.publish('ceo_completion', { key: c.key, instanceId: c.instanceId, watchId: c.watchId, status });
    this.audit('completion', status, true, `completion ${c.key} ${status}`, c.instanceId);
  }

  // ── confirmations and lifecycle ──

  /** A human asks for a lifecycle action: a pending confirmation bound to it and its arguments. */
  createConfirmation(action: LifecycleAction, instanceId: string, ttlMs = DEFAULT_CONFIRMATION_TTL_MS): Confirmation {
    if (ttlMs < 1000 || ttlMs > MAX_CONFIRMATION_TTL_MS) throw badRequest('INVALID_CONFIRMATION', `expiresInMs must be between 1000 and ${MAX_CONFIRMATION_TTL_MS}.`);
    const instance = this.d.fleet.inspect(instanceId).instance;
    if (!instance.owned) throw conflict('INSTANCE_NOT_OWNED', `Instance ${instanceId} was not started by this manager; it can only start, stop and restart its own.`);
    const now = this.now();
    const args = { instanceId };
    const c = this.d.repo.addConfirmation({ id: newId('conf'), action, args, argsHash: argsHash(action, args), status: 'pending', createdAt: now, expiresAt: now + ttlMs });
    this.audit('confirmation', 'created', true, `${action} ${instanceId} awaits approval`, instanceId, { confirmationId: c.id });
    return c;
  }

  /** Approves (never consumes: the action it authorizes does that) or cancels a pending confirmation. */
  decide(id: string, decision: 'approved' | 'cancelled'): Confirmation {
    const c = this.d.repo.getConfirmation(id);
    if (!c) throw notFound('Confirmation', id);
    const from = decision === 'approved' ? 'pending' : c.status === 'approved' ? 'approved' : 'pending';
    if (!this.d.repo.transition(id, from, decision, this.now())) {
      const why = c.expiresAt <= this.now() ? 'expired' : `is ${c.status}`;
      this.audit('confirmation', decision, false, `confirmation ${id} ${why}`, c.args.instanceId);
      throw conflict('CONFIRMATION_INVALID', `Confirmation ${id} ${why}; create a new one with POST /api/svc-ceo/confirmations.`);
    }
    this.audit('confirmation', decision, true, `${c.action} ${c.args.instanceId} ${decision}`, c.args.instanceId, { confirmationId: id });
    return this.d.repo.getConfirmation(id)!;
  }

  /** A decision that was not a person's (the route says why): refused and audited. */
  refuseDecision(id: string, decision: 'approved' | 'cancelled', why: string): never {
    const c = this.d.repo.getConfirmation(id);
    this.audit('policy', decision === 'approved' ? 'confirm' : 'cancel', false, `confirmation ${id} not ${decision}: ${why}`, c?.args.instanceId ?? null, { confirmationId: id });
    throw new AppError(
      403,
      'PERSON_REQUIRED',
      `Only a person ${decision === 'approved' ? 'approves' : 'cancels'} a confirmation, and this request is not a person's: ${why}. Use the dashboard page, or send the server's token (Authorization: Bearer; \`svc token\` prints an instance's, <manager home>/token holds the manager's).`,
    );
  }

  /** Starts, stops or restarts an owned instance: only with an approved confirmation of exactly this action, used up here. */
  async lifecycle(action: LifecycleAction, instanceId: string, confirmationId: string | undefined): Promise<unknown> {
    const hash = argsHash(action, { instanceId });
    if (!confirmationId || !this.d.repo.consume(confirmationId, action, hash, this.now())) {
      const c = confirmationId ? this.d.repo.getConfirmation(confirmationId) : undefined;
      const why = !confirmationId
        ? 'needs a confirmation'
        : !c
          ? 'names an unknown confirmation'
          : c.action !== action || c.argsHash !== hash
            ? 'names a confirmation of another action'
            : c.expiresAt <= this.now()
              ? 'names an expired confirmation'
              : `names a confirmation that is ${c.status}`;
      this.audit('policy', action, false, `${action} ${instanceId} refused: ${why}`, instanceId, confirmationId ? { confirmationId } : undefined);
      throw new AppError(403, 'CONFIRMATION_REQUIRED', `${action} of ${instanceId} ${why}. A person creates one (POST /api/svc-ceo/confirmations) and approves it (POST /api/svc-ceo/confirmations/:id/confirm).`);
    }
    try {
      const result = await this.d.fleet.lifecycle(action, instanceId);
      this.audit('lifecycle', action, true, `${action} ${instanceId}`, instanceId, { confirmationId });
      return result;
    } catch (err) {
      this.audit('lifecycle', action, false, `${action} ${instanceId} failed: ${(err as Error).message}`, instanceId, { confirmationId });
      throw err;
    }
  }

  // ── read-only queries and docs edits ──

  private projectRoot(instanceId: string): string {
    const root = this.d.fleet.inspect(instanceId).instance.workingDir;
    if (!root) throw conflict('INSTANCE_UNREACHABLE', `The working directory of ${instanceId} is not known yet (is it online?).`);
    return root;
  }

  /** A read-only command in an instance's project (checked first, run without a shell, output capped). */
  async query(instanceId: string, command: string): Promise<QueryResult & { command: string }> {
    const root = this.projectRoot(instanceId);
    const plan = planQuery(root, command);
    if (!plan.ok) {
      this.audit('policy', 'query', false, `refused \`${command.slice(0, 200)}\`: ${plan.reason}`, instanceId);
      throw badRequest('QUERY_REFUSED', `Refused: ${plan.reason}.`);
    }
    return this.tool('query', instanceId, async () => ({ command, ...(await runQuery(root, plan)) }), (r) => `\`${command.slice(0, 200)}\` (exit ${r.exitCode}${r.truncated ? ', truncated' : ''})`);
  }

  /** A Markdown edit: an instance's README.md or docs/, or svc's notes (no instanceId). */
  async editDocs(input: { instanceId?: string; path: string; operation: DocsOperation; content: string; reason?: string }) {
    const target: 'project' | 'notes' = input.instanceId ? 'project' : 'notes';
    const root = input.instanceId ? this.projectRoot(input.instanceId) : this.d.notesDir;
    try {
      const result = await editDoc({ root, target, path: input.path, operation: input.operation, content: input.content });
      this.audit('docs_edit', input.operation, true, `${target === 'notes' ? 'notes/' : ''}${input.path}${input.reason ? `: ${input.reason}` : ''}`, input.instanceId ?? null, { bytes: result.bytes });
      return { ...result, target };
    } catch (err) {
      this.audit('docs_edit', input.operation, false, `${input.path}: ${(err as Error).message}`, input.instanceId ?? null);
      throw err;
    }
  }

  // ── settings ──

  settings(): CeoSettings {
    const saved = this.d.repo.getValue<Partial<CeoSettings>>('settings');
    return { ...DEFAULT_CEO_SETTINGS, ...saved, voice: { ...DEFAULT_CEO_SETTINGS.voice, ...saved?.voice }, realtime: { ...DEFAULT_CEO_SETTINGS.realtime, ...saved?.realtime } };
  }

  updateSettings(patch: z.infer<typeof CeoSettingsPatchSchema>): CeoSettings {
    const next = applySettingsPatch(this.settings(), patch);
    this.d.repo.setValue('settings', next);
    // names only, never a value
    this.audit('policy', 'settings', true, `settings changed: ${Object.keys(patch).join(', ')}`, null, { env: Object.keys(patch.env ?? {}), voice: Object.keys(patch.voice ?? {}), realtime: Object.keys(patch.realtime ?? {}) });
    return next;
  }

  audits(q: { kind?: string; instanceId?: string; limit: number }) {
    return this.d.repo.audit(q);
  }

  state() {
    const settings = this.settings();
    return {
      scope: this.d.fleet.scope,
      session: { provider: settings.provider, model: settings.model, providerSessionId: this.d.repo.getValue<string | null>(`session:${settings.provider}`) ?? null },
      pushToTalk: this.d.voiceConfigured ? this.d.voiceConfigured() : settings.voice.baseUrl !== '',
      transcript: this.d.repo.transcriptTail(50),
      watches: this.watches(),
      pending: this.pending(),
      auditTail: this.d.repo.audit({ limit: 50 }),
      confirmations: this.d.repo.liveConfirmations(this.now()),
    };
  }
}
