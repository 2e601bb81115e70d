// What the manager asks of all instances at once: one memory search across their /api/svc-memory
// routes (never their files), merged and labelled by instance.
import type { Instance } from '../../protocol/dashboard.ts';
import { callInstance, type Target } from './instance-client.ts';

export interface FederatedHit {
  instanceId: string;
  instanceLabel: string;
  path: string;
  kind: string;
  heading: string;
  snippet: string;
  score: number;
  startLine: number;
  endLine: number;
}

export async function searchMemory(
  instances: { row: Instance; target: Target }[],
  q: string,
  limit: number,
): Promise<{ query: string; hits: FederatedHit[]; searched: number; errors: { instanceId: string; message: string }[] }> {
  const errors: { instanceId: string; message: string }[] = [];
  const query = new URLSearchParams({ q, limit: String(limit) });
  const results = await Promise.all(
    instances.map(async ({ row, target }) => {
      try {
        const answer = await callInstance<{ hits: Omit<FederatedHit, 'instanceId' | 'instanceLabel'>[] }>(target, `/api/svc-memory/search?${query}`, { timeoutMs: 5000 });
        return answer.hits.map((h) => ({ instanceId: row.id, instanceLabel: row.label, path: h.path, kind: h.kind, heading: h.heading, snippet: h.snippet, score: h.score, startLine: h.startLine, endLine: h.endLine }));
      } catch (err) {
        errors.push({ instanceId: row.id, message: (err as Error).message });
        return [];
      }
    }),
  );
  // Each instance ranks with the same fusion, so scores compare; ties keep the instance order.
  const hits = results.flat().sort((a, b) => b.score - a.score).slice(0, limit);
  return { query: q, hits, searched: instances.length, errors };
}
