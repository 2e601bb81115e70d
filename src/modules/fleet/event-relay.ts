// The hub's side of the machines' events. Each machine's instance sends its public events into the JetStream stream
// SVC_EVENTS (event-outbox.ts); the dashboard's event bridge reads each fleet instance's events from its own durable
// consumer, acknowledging each once it has taken it. The consumer's place survives the hub's restarts and the
// nats-server's, and the stream keeps what was published while the hub was away: after any outage the bridge goes on
// from the first event it had not taken, whatever the length of the outage (within the stream's bounds).
import { AckPolicy, DeliverPolicy, DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type ConsumerMessages, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Reader, ReaderHandlers } from '../dashboard/index.ts';
import { ensureStream } from './streams.ts';
import { ALL_INSTANCE_EVENTS, EVENTS_STREAM, eventsConsumer, instanceEventsSubject } from './subjects.ts';

/** The stream's bounds: a week of events, at most 256 MiB (the oldest go first). */
const MAX_AGE_MS = 7 * 24 * 3_600_000;
const MAX_BYTES = 256 * 1024 * 1024;
/** A frame a machine sends again within this long (its acknowledgement lost) is stored once. */
const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** Events handed to the hub before it acknowledges them. */
const BATCH = 512;

const nanos = (ms: number) => ms * 1_000_000;

export class EventRelay {
  private connection?: NatsConnection;
  private jsm?: JetStreamManager;

  /** Makes (or updates) the stream. */
  async start(connection: NatsConnection): Promise<void> {
    this.connection = connection;
    this.jsm = await jetstreamManager(connection);
    const stream = {
      name: EVENTS_STREAM,
      subjects: [ALL_INSTANCE_EVENTS],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(MAX_AGE_MS),
      max_bytes: MAX_BYTES,
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    };
    await ensureStream(this.jsm, stream);
  }

  /**
   * Reads one instance's events, from the first one the hub has not taken, as the bridge reads an instance's
   * GET /api/events. Its consumer outlives the reader (and the hub); one unused for the stream's whole age goes.
   */
  read(machineId: string, key: string, handlers: ReaderHandlers): Reader {
    let stopped = false;
    let messages: ConsumerMessages | undefined;
    const end = (reason: string) => {
      if (!stopped) handlers.onEnd(reason);
      stopped = true;
    };
    void (async () => {
      const { jsm, connection } = this;
      if (!jsm || !connection) return end('the fleet is not running');
      const config = {
        durable_name: eventsConsumer(machineId, key),
        filter_subject: instanceEventsSubject(machineId, key),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        max_ack_pending: BATCH * 2,
        inactive_threshold: nanos(MAX_AGE_MS),
      };
      await jsm.consumers.add(EVENTS_STREAM, config).catch(() => jsm.consumers.update(EVENTS_STREAM, config.durable_name, config));
      const consumer = await jetstream(connection).consumers.get(EVENTS_STREAM, config.durable_name);
      if (stopped) return;
      messages = await consumer.consume({ max_messages: BATCH });
      handlers.onOpen();
      for await (const m of messages) {
        if (stopped) break;
        let data: unknown;
        try {
          data = m.json();
        } catch {
          data = null;
        }
        if (typeof data === 'object' && data !== null) {
          const { eventId } = data as { eventId?: unknown };
          handlers.onFrame({ ...(typeof eventId === 'string' ? { id: eventId } : {}), data: data as Record<string, unknown> });
        }
        m.ack();
      }
      end('the stream of its events ended');
    })().catch((err: Error) => end(`its events could not be read: ${err.message}`));
    return {
      close() {
        stopped = true;
        void messages?.close().catch(() => undefined);
      },
    };
  }

  /** A machine was revoked: its instances' events and consumers go. */
  async forgetMachine(machineId: string, keys: readonly string[]): Promise<void> {
    const jsm = this.jsm;
    if (!jsm) return;
    for (const key of keys) await jsm.consumers.delete(EVENTS_STREAM, eventsConsumer(machineId, key)).catch(() => undefined);
    await jsm.streams.purge(EVENTS_STREAM, { filter: instanceEventsSubject(machineId, '*') }).catch(() => undefined);
  }
}
