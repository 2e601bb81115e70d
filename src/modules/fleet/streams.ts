// The hub's JetStream streams (the work queue's and the relayed events'), made or brought up to date at start.
import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';

/**
 * Adds the stream, or updates the one already there. When neither works, the add's own error is the one that
 * says why (an operator's account without JetStream, or with less storage than the stream's bound), not the
 * update's "stream not found".
 */
export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await jsm.streams.add(config);
  } catch (added) {
    try {
      await jsm.streams.update(config.name, config);
    } catch {
      throw new Error(`the JetStream stream ${config.name} (${Math.round((config.max_bytes ?? 0) / 1024 ** 2)} MiB) cannot be made: ${(added as Error).message}`);
    }
  }
}
