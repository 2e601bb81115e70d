// An isolated worker's changes before they land: its diff, the merge into the user's branch, the
// discard, the review with comments, and the worktrees still open. Merge, discard and review are a
// person's: an agent run's credential is refused, as at the gates.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { forbidden } from '../../../core/errors.ts';
import { callerOf } from '../../../http/caller.ts';
import { route, type Route } from '../../../http/routes.ts';
import { TRACE_ID_PATTERN } from '../../../agent/traces.ts';
import type { RunIdentity } from '../../../protocol/caller.ts';
import { MergeResultSchema, ReviewBodySchema, WorktreeDiffSchema, WorktreeListItemSchema } from '../../../protocol/orchestration.ts';
import type { WorkerService } from '../workers.service.ts';
import { PATCH_MAX_BYTES } from './worktrees.service.ts';

export interface WorktreeRouteDeps {
  workers: WorkerService;
  resolveRun(token: string): RunIdentity | undefined;
}

const runParams = z.strictObject({ runId: z.string().regex(TRACE_ID_PATTERN, 'not a worker run id (tr_…)') });

export function worktreeRoutes({ workers, resolveRun }: WorktreeRouteDeps): Route[] {
  const person = (request: FastifyRequest, what: string) => {
    if (callerOf(request, resolveRun).kind === 'agent') throw forbidden('PERSON_REQUIRED', `Only a person ${what}: an agent run's credential cannot.`);
    return { actor: 'human' as const };
  };
  return [
    route({
      method: 'GET',
      url: '/api/orchestrate/worker-runs/:runId/diff',
      summary: `An isolated run's changes: the files (status, additions, deletions; binary files named, not inlined) and the unified diff of its branch against the commit it started from (cut at ${PATCH_MAX_BYTES / 1024 / 1024} MiB with truncated: true). 409 NO_WORKTREE for a run without an open worktree, WORKTREE_BUSY while a run in it is going.`,
      params: runParams,
      response: WorktreeDiffSchema,
      errors: [404, 409],
      handler: async ({ params }) => {
        const diff = await workers.diff(params.runId);
        return {
          runId: params.runId,
          branch: diff.worktree.branch,
          base: diff.worktree.base,
          state: diff.worktree.state,
          files: diff.files,
          patch: diff.patch,
          truncated: diff.truncated,
          ...(diff.truncated ? { note: `The patch is cut at ${PATCH_MAX_BYTES / 1024 / 1024} MiB; the file list is whole. See the rest with: git diff ${diff.worktree.base} ${diff.worktree.branch}` } : {}),
        };
      },
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/worker-runs/:runId/merge',
      summary: 'Lands an isolated run\'s changes as one commit on your current branch (naming the run), then removes its worktree and branch. 409 MERGE_CONFLICT naming the files (a conflict, or an uncommitted change of yours in a file it writes) leaves your tree exactly as it was. A person only (403 PERSON_REQUIRED); audited.',
      params: runParams,
      body: z.strictObject({}).optional(),
      response: MergeResultSchema,
      errors: [403, 404, 409],
      handler: async ({ params, request }) => workers.merge(person(request, 'merges a worker\'s changes'), params.runId),
    }),
    route({
      method: 'DELETE',
      url: '/api/orchestrate/worker-runs/:runId/worktree',
      summary: 'Discards an isolated run\'s worktree and its branch, whatever they hold (an orphaned one too). A person only (403 PERSON_REQUIRED); audited.',
      params: runParams,
      response: z.object({ runId: z.string(), discarded: z.literal(true) }),
      errors: [403, 404, 409],
      handler: async ({ params, request }) => {
        await workers.discard(person(request, 'discards a worker\'s changes'), params.runId);
        return { runId: params.runId, discarded: true as const };
      },
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/worker-runs/:runId/review',
      summary: 'Reviews an isolated run: approve merges it (the merge\'s answer and errors); changes_requested dispatches a follow-up run of the same employee in the same worktree with the comments in its prompt (202 {runId}, its reviewOf names this run). A person only (403 PERSON_REQUIRED); audited.',
      params: runParams,
      body: ReviewBodySchema,
      status: 202,
      response: z.union([MergeResultSchema, z.object({ runId: z.string(), reviewOf: z.string(), status: z.string() })]),
      errors: [403, 404, 409],
      handler: async ({ params, body, request, reply }) => {
        const acting = person(request, 'reviews a worker\'s changes');
        if (body.decision === 'approve') {
          const merged = await workers.merge(acting, params.runId);
          reply.code(200);
          return merged;
        }
        const followUp = workers.requestChanges(acting, params.runId, body.comments);
        return { runId: followUp.runId, reviewOf: params.runId, status: followUp.status };
      },
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/worktrees',
      summary: 'The worker worktrees still open (not merged or discarded), newest first; orphaned: its last run did not end on its own (the server stopped mid-run) or its directory is gone.',
      response: z.object({ worktrees: z.array(WorktreeListItemSchema) }),
      handler: () => ({ worktrees: workers.openWorktrees() }),
    }),
  ];
}
