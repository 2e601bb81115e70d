// The hub's side of the fleet's work queue. Items are kept in dashboard.db (what the dashboard shows) and published to a
// JetStream work-queue stream: to the shared consumer `any`, or to one machine's own. A machine pulls an item it can
// run, claims it from the hub (the hub refuses an item that ended), runs it, reports its end and acknowledges it. A
// machine that dies mid-run stops extending its acknowledgement: after the ack wait the stream gives the item to
// another machine, whose claim abandons the first attempt. So an item runs to its end once, on whichever machine
// was alive to finish it.
import { AckPolicy, DiscardPolicy, jetstreamManager, jetstream, RetentionPolicy, StorageType, type JetStreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { AppError, badRequest, notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { WorkReportSchema, type WorkItem } from '../../protocol/fleet.ts';
import { fleetInstanceId } from './instance-names.ts';
import { ensureStream } from './streams.ts';
import { ALL_WORK_REPORTS, machineOfSubject, WORK_STREAM, WORK_SUBJECTS, workConsumer, workSubject } from './subjects.ts';
import type { WorkInput } from './work-input.ts';
import type { WorkRepo } from './work.repo.ts';

/** How long a machine may go without extending its hold on an item before the item goes to another machine. */
export const WORK_ACK_WAIT_MS = 30_000;
/** The queue's bounds: items wait at most a week, and the stream holds at most 256 MiB of them. */
const MAX_AGE_MS = 7 * 24 * 3_600_000;
const MAX_BYTES = 256 * 1024 * 1024;
const LISTED = 200;

const nanos = (ms: number) => ms * 1_000_000;

export interface WorkQueueOptions {
  repo: WorkRepo;
  /** A machine of the fleet (not revoked), by id. */
  isMachine(id: string): boolean;
  ackWaitMs?: number;
  onChange(item: WorkItem): void;
  now: () => number;
}

export class WorkQueue {
  private jsm?: JetStreamManager;
  private js?: JetStreamClient;

  constructor(private readonly o: WorkQueueOptions) {}

  /** Makes the stream and the consumers (of `any` and of every machine), and answers the machines' reports. */
  async start(connection: NatsConnection, machineIds: readonly string[]): Promise<void> {
    this.jsm = await jetstreamManager(connection);
    this.js = jetstream(connection);
    const stream = { name: WORK_STREAM, subjects: [WORK_SUBJECTS], retention: RetentionPolicy.Workqueue, storage: StorageType.File, max_age: nanos(MAX_AGE_MS), max_bytes: MAX_BYTES, discard: DiscardPolicy.New };
    await ensureStream(this.jsm, stream);
    for (const target of ['any', ...machineIds]) await this.addConsumer(target);
    connection.subscribe(ALL_WORK_REPORTS, { callback: (err, msg) => void (err || this.onReport(msg)) });
  }

  /** A machine joined: its own consumer, for the items only it may run. */
  async addConsumer(target: string): Promise<void> {
    const config = { durable_name: workConsumer(target), filter_subject: workSubject(target), ack_policy: AckPolicy.Explicit, ack_wait: nanos(this.o.ackWaitMs ?? WORK_ACK_WAIT_MS), max_deliver: -1 };
    await this.jsm?.consumers.add(WORK_STREAM, config).catch(() => this.jsm!.consumers.update(WORK_STREAM, config.durable_name, config));
  }

  /** A machine was revoked: what it ran goes back to the queue, what only it could run fails, and its consumer goes. */
  async revokeMachine(machineId: string): Promise<void> {
    for (const id of this.o.repo.revokeMachine(machineId, this.o.now())) this.changed(id);
    await this.jsm?.consumers.delete(WORK_STREAM, workConsumer(machineId)).catch(() => undefined);
    await this.jsm?.streams.purge(WORK_STREAM, { filter: workSubject(machineId) }).catch(() => undefined);
  }

  async submit(input: WorkInput): Promise<WorkItem> {
    if (!this.js) throw new AppError(503, 'FLEET_DISABLED', 'the fleet\'s queue is not running yet: try again in a moment');
    const machine = input.machine ?? 'any';
    if (machine !== 'any' && !this.o.isMachine(machine)) throw badRequest('VALIDATION_FAILED', `no machine ${machine} in the fleet: give a machine id from GET /api/dashboard/machines, or "any"`, { field: 'machine' });
    const item = { id: newId('work'), prompt: input.prompt, provider: input.provider ?? null, model: input.model ?? null, machine, workingDir: input.workingDir ?? null };
    this.o.repo.add(item, this.o.now());
    // announced before it is published: a machine may claim it at once, and its `running` must come after `queued`
    const queued = this.changed(item.id);
    const { machine: _machine, ...message } = item;
    try {
      // the item's id is the message's: a publish retried after a lost answer is not queued twice
      await this.js.publish(workSubject(machine), JSON.stringify(message), { msgID: item.id });
    } catch (err) {
      this.o.repo.fail(item.id, `the queue refused it: ${(err as Error).message}`, this.o.now());
      this.changed(item.id);
      throw new AppError(503, 'QUEUE_FULL', `The fleet's queue did not take the item (${(err as Error).message}); try again.`);
    }
    return queued;
  }

  list(): WorkItem[] {
    return this.o.repo.list(LISTED);
  }

  get(id: string): WorkItem {
    const item = this.o.repo.get(id);
    if (!item) throw notFound('work item', id);
    return item;
  }

  private changed(id: string): WorkItem {
    const item = this.o.repo.get(id)!;
    this.o.onChange(item);
    return item;
  }

  /** A machine's claim of an item, or the end of its run: answered, so the machine knows it counted. */
  private onReport(msg: Msg): void {
    const machineId = machineOfSubject(msg.subject)!;
    let parsed;
    try {
      parsed = WorkReportSchema.safeParse(JSON.parse(msg.string()));
    } catch {
      return void msg.respond(JSON.stringify({ ok: false, error: 'the report is not JSON' }));
    }
    if (!parsed.success) return void msg.respond(JSON.stringify({ ok: false, error: `the report is malformed: ${parsed.error.issues[0]?.message}` }));
    const report = parsed.data;
    const now = this.o.now();
    if (report.kind === 'claim') {
      const claim = this.o.repo.claim(report.item, { id: report.attempt, machineId, instanceId: fleetInstanceId(machineId, report.instance), runId: report.runId }, now);
      msg.respond(JSON.stringify(claim.ok ? { ok: true } : { ok: false, error: claim.reason }));
      if (claim.ok) this.changed(report.item);
      return;
    }
    const counted = this.o.repo.end(report.item, report.attempt, { status: report.status, answer: report.answer, reason: report.reason }, now);
    // a late end of an abandoned attempt is acknowledged all the same: the machine has nothing more to do about it
    msg.respond(JSON.stringify({ ok: true }));
    if (counted) this.changed(report.item);
  }
}
