// The disk report: what the data directory holds, by part, with the traces' retention state.
import { z } from 'zod';
import { routeGroup, route } from '../../http/routes.ts';
import { DISK_PARTS } from '../../protocol/disk.ts';
import type { DiskUsage } from './disk.service.ts';

const PruneSchema = z.object({ at: z.number(), count: z.number().int(), bytes: z.number() });

export const DiskReportSchema = z.object({
  home: z.string(),
  measuredAt: z.number(),
  totalBytes: z.number(),
  parts: z.array(z.object({ part: z.enum(DISK_PARTS), bytes: z.number() })),
  database: z.object({ freeBytes: z.number(), autoVacuum: z.enum(['none', 'full', 'incremental']), auditBytes: z.number(), auditEntries: z.number().int() }),
  traces: z.object({
    count: z.number().int(),
    bytes: z.number(),
    pinned: z.number().int(),
    scanned: z.boolean(),
    lastPrune: PruneSchema.nullable(),
    maxBytes: z.number().int(),
    maxAgeDays: z.number().int(),
  }),
});

export const diskRoutes = routeGroup('disk', ({ disk }: { disk: DiskUsage }) => {
  return [
    route({
      method: 'GET',
      url: '/api/disk',
      summary: 'The data directory\'s use by part (database, traces, media, memory, run directories, worktrees, …), the audit log\'s share, the trace retention settings and its last pass.',
      query: z.strictObject({ fresh: z.enum(['true', 'false']).default('false') }),
      response: DiskReportSchema,
      handler: ({ query }) => disk.report(query.fresh === 'true'),
    }),
  ];
});
