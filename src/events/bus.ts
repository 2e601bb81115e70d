// In-process event bus. Publishing validates the payload against the catalogue, so a malformed
// event fails where it is made, not in a client. Subscribers are called synchronously, in order.
import {
  lookup,
  RESERVED_KEYS,
  type EventName,
  type EventPayload,
  type NamespacedEventName,
  type Topic,
  type Visibility,
} from '../protocol/events.ts';

export interface BusEvent {
  name: string;
  topic: Topic;
  visibility: Visibility;
  payload: Record<string, unknown>;
  ts: number;
}

export type BusListener = (event: BusEvent) => void;

export class EventBus {
  private readonly listeners = new Set<BusListener>();

  constructor(private readonly onListenerError: (err: unknown, event: BusEvent) => void = () => {}) {}

  publish<N extends EventName>(name: N, payload: EventPayload<N>): BusEvent;
  publish(name: NamespacedEventName, payload: Record<string, unknown>): BusEvent;
  publish(name: string, payload: Record<string, unknown>): BusEvent {
    const def = lookup(name);
    if (!def) throw new Error(`unknown event '${name}': add it to src/protocol/events.ts`);
    const parsed = def.payload.parse(payload) as Record<string, unknown>;
    for (const key of RESERVED_KEYS) {
      if (key in parsed) throw new Error(`event '${name}' uses the reserved field '${key}'`);
    }
    const event: BusEvent = { name, topic: def.topic, visibility: def.visibility, payload: parsed, ts: Date.now() };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        // one faulty subscriber must not starve the others or the publisher
        this.onListenerError(err, event);
      }
    }
    return event;
  }

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
