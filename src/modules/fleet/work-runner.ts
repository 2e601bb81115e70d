// A machine's side of the fleet's work queue (work-queue.ts): it pulls items from the shared consumer and its own, as
// many at once as its setting allows, and runs each one it can as a chat run of its svc serve. Before a run it claims
// the item from the hub (which refuses one that ended); while it runs it extends its hold on the message, so the queue
// gives the item to another machine only when this one stops answering; when the run ends it reports the end, then
// acknowledges the message. An item it cannot run (the provider not ready here, the directory missing) goes back to
// the queue for the others.
import { jetstream, type Consumer, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { newId } from '../../core/ids.ts';
import { WorkMessageSchema, type WorkMessage } from '../../protocol/fleet.ts';
import { WORK_STREAM, workConsumer, workReportSubject } from './subjects.ts';

/** How a run ended, as the hub records it. */
export interface WorkOutcome {
  status: 'succeeded' | 'failed';
  answer: string | null;
  reason: string | null;
}

export interface WorkRunnerOptions {
  connection: NatsConnection;
  machineId: string;
  /** How many items this machine runs at once now (0: it takes none); read before every pull, so a new setting counts. */
  slots: () => number;
  /** The key of the instance that runs items (this svc serve). */
  instance: string;
  /** Why this machine cannot run the item, or undefined when it can. */
  cannotRun: (item: WorkMessage) => Promise<string | undefined>;
  /** Runs the item as a chat run with this request id. */
  run: (item: WorkMessage, requestId: string) => Promise<WorkOutcome>;
}

/** How long one pull waits for an item before it looks at its slots again. */
const PULL_EXPIRES_MS = 5_000;
/** An item this machine cannot run comes back after this long (to it or, sooner, to another machine). */
const NOT_HERE_DELAY_MS = 2_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class WorkRunner {
  private running = 0;
  private closed = false;
  /** The runs under way: on close they are handed back to the queue, not reported. */
  private readonly inFlight = new Set<JsMsg>();

  constructor(private readonly o: WorkRunnerOptions) {}

  start(): void {
    for (const target of [this.o.machineId, 'any']) void this.pull(workConsumer(target));
  }

  /** Stops pulling; items under way go back to the queue at once (their runs end with svc serve). */
  close(): void {
    this.closed = true;
    for (const msg of this.inFlight) msg.nak();
    this.inFlight.clear();
  }

  /**
   * One loop per consumer (the machine's own and the shared one), each pulling while a slot is free. Both may wait
   * at once; an item that arrives when the other loop took the last slot goes back at once.
   */
  private async pull(name: string): Promise<void> {
    const js = jetstream(this.o.connection);
    let consumer: Consumer | undefined;
    while (!this.closed) {
      if (this.running >= this.o.slots()) {
        await sleep(250);
        continue;
      }
      let msg: JsMsg | null;
      try {
        consumer ??= await js.consumers.get(WORK_STREAM, name);
        msg = await consumer.next({ expires: PULL_EXPIRES_MS });
      } catch {
        // the hub or its nats-server away, or the consumer not made yet: try again shortly
        consumer = undefined;
        await sleep(1_000);
        continue;
      }
      if (!msg) continue;
      // svc serve is stopping, or the slots filled (or the setting changed) while the pull waited: it goes back at once
      if (this.closed || this.running >= this.o.slots()) {
        msg.nak();
        continue;
      }
      this.running++;
      const held = consumer;
      void (async () => {
        const ackWaitNanos = (await held.info(true).catch(() => undefined))?.config.ack_wait;
        await this.handle(msg, ackWaitNanos ? ackWaitNanos / 1_000_000 : 30_000);
      })().finally(() => this.running--);
    }
  }

  private async handle(msg: JsMsg, ackWaitMs: number): Promise<void> {
    let item: WorkMessage;
    try {
      item = WorkMessageSchema.parse(msg.json());
    } catch {
      return void msg.term();
    }
    const why = await this.o.cannotRun(item);
    if (why) return void msg.nak(NOT_HERE_DELAY_MS);
    const attempt = newId('att');
    const runId = newId('req');
    const claim = await this.report({ kind: 'claim', item: item.id, attempt, instance: this.o.instance, runId }, 1).catch(() => undefined);
    if (!claim) return void msg.nak(NOT_HERE_DELAY_MS);
    // the hub refused: the item ended (another machine finished it) or is unknown
    if (!claim.ok) return void msg.term();
    this.inFlight.add(msg);
    const hold = setInterval(() => msg.working(), Math.max(250, ackWaitMs / 3));
    try {
      let outcome: WorkOutcome;
      try {
        outcome = await this.o.run(item, runId);
      } catch (err) {
        outcome = { status: 'failed', answer: null, reason: (err as Error).message };
      }
      // svc serve is stopping: close() handed the item back; this run's end is no answer
      if (!this.inFlight.has(msg)) return;
      // the end waits for the hub (the hold goes on meanwhile): acknowledged before the hub has it, it would be lost
      const recorded = await this.report({ kind: 'end', item: item.id, attempt, ...outcome }, Infinity).then(() => true, () => false);
      if (recorded) msg.ack();
    } finally {
      clearInterval(hold);
      this.inFlight.delete(msg);
    }
  }

  /** A report to the hub, answered when the hub recorded it; tried again while the hub is away. */
  private async report(report: Record<string, unknown>, tries: number): Promise<{ ok: boolean; error?: string }> {
    for (let n = 1; ; n++) {
      try {
        const reply = await this.o.connection.request(workReportSubject(this.o.machineId), JSON.stringify(report), { timeout: 5_000 });
        return reply.json<{ ok: boolean; error?: string }>();
      } catch (err) {
        if (n >= tries || this.closed) throw err;
        await sleep(1_000);
      }
    }
  }
}
