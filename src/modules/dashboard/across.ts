// One question put to every online instance at once (with its token): the answers gathered, each item
// labelled by its instance, and an instance that fails named, never fatal. The manager keeps nothing.
import type { Instance } from '../../protocol/dashboard.ts';
import { callInstance, type Target } from './instance-client.ts';

export type FromInstance<T> = T & { instanceId: string; instanceLabel: string };

export interface Across<T> {
  items: FromInstance<T>[];
  /** How many instances were asked (the online ones). */
  asked: number;
  /** The instances that did not answer, and why. */
  errors: { instanceId: string; instanceLabel: string; message: string }[];
}

/** GET `path` of every instance; `pick` takes the items out of its answer. */
export async function askEvery<A, T>(instances: { row: Instance; target: Target }[], path: string, pick: (answer: A) => T[], timeoutMs = 5000): Promise<Across<T>> {
  const errors: Across<T>['errors'] = [];
  const lists = await Promise.all(
    instances.map(async ({ row, target }) => {
      try {
        return pick(await callInstance<A>(target, path, { timeoutMs })).map((item): FromInstance<T> => ({ ...item, instanceId: row.id, instanceLabel: row.label }));
      } catch (err) {
        errors.push({ instanceId: row.id, instanceLabel: row.label, message: (err as Error).message });
        return [];
      }
    }),
  );
  return { items: lists.flat(), asked: instances.length, errors };
}
