// /api/dashboard/memory/*, /chat/*, /git/*, /connectors/*, /worktrees and /permissions
// (permissions.routes.ts): the manager's views across instances.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AppError, badRequest } from '../../core/errors.ts';
import { defineRoutes, route } from '../../http/routes.ts';
import { BOARD_LANES, BoardItemSchema, NoteSchema } from '../../protocol/dashboard.ts';
import { StreamLineSchema } from '../../protocol/stream-lines.ts';
import { WorktreeListItemSchema, type WorktreeListItem } from '../../protocol/orchestration.ts';
import { authHeaders, reachError, send } from './instance-client.ts';
import { searchMemory } from './federation.ts';
import { gitDiffSummary, gitFileDiff, gitLog, gitStatus } from './git.ts';
import type { Connectors } from './connectors.ts';
import type { InstancesService } from './instances.service.ts';
import { dashboardPermissionRoutes } from './permissions.routes.ts';
import { askEvery } from './across.ts';

const idParams = z.strictObject({ id: z.string().min(1).max(64) });
const CONNECTOR_HEADER = 'x-svc-connector';

export const federationRoutes: FastifyPluginAsync<{ instances: InstancesService; connectors: Connectors }> = async (app, { instances, connectors }) => {
  /** The working directory of a local instance: git runs on this machine only. */
  const workingDir = (id: string): string => {
    const row = instances.get(id);
    const host = new URL(row.url).hostname;
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') throw badRequest('BAD_REQUEST', `Instance ${id} runs on ${host}: its working directory is not on this machine.`);
    if (!row.workingDir) throw new AppError(503, 'INSTANCE_UNREACHABLE', `The working directory of instance ${id} is not known yet (is it online?).`);
    return row.workingDir;
  };
  const credential = (headers: Record<string, unknown>) => (typeof headers[CONNECTOR_HEADER] === 'string' ? (headers[CONNECTOR_HEADER] as string) : undefined);
  // the tool calls waiting for a person in every instance, answered through each instance's own API
  await app.register(dashboardPermissionRoutes, { instances });

  defineRoutes(app, 'dashboard-federation', [
    route({
      method: 'GET',
      url: '/api/dashboard/worktrees',
      summary: 'The worker worktrees waiting for a review in every online instance (each one\'s GET /api/orchestrate/worktrees), newest first, each with its instance\'s id and label; the review itself is the instance\'s own page, /i/<id>/#review=<runId>. An instance that did not answer is named in errors.',
      response: z.object({
        worktrees: z.array(WorktreeListItemSchema.extend({ instanceId: z.string(), instanceLabel: z.string() })),
        asked: z.number().int(),
        errors: z.array(z.object({ instanceId: z.string(), instanceLabel: z.string(), message: z.string() })),
      }),
      handler: async () => {
        const online = instances.list().filter((i) => i.status === 'online').map((row) => ({ row, target: instances.target(row.id) }));
        const { items, ...rest } = await askEvery(online, '/api/orchestrate/worktrees', (answer: { worktrees: WorktreeListItem[] }) => answer.worktrees);
        return { worktrees: items.sort((a, b) => b.createdAt - a.createdAt), ...rest };
      },
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/memory/search',
      summary: 'One memory search across every online instance (through their /api/svc-memory/search), merged by score and labelled by instance.',
      query: z.strictObject({ q: z.string().trim().min(1).max(1000), limit: z.coerce.number().int().min(1).max(50).default(10) }),
      response: z.object({
        query: z.string(),
        hits: z.array(z.object({ instanceId: z.string(), instanceLabel: z.string(), path: z.string(), kind: z.string(), heading: z.string(), snippet: z.string(), score: z.number(), startLine: z.number(), endLine: z.number() })),
        /** How many instances were asked (the online ones): "no match in 3 instances" needs it. */
        searched: z.number().int(),
        errors: z.array(z.object({ instanceId: z.string(), message: z.string() })),
      }),
      handler: ({ query }) =>
        searchMemory(
          instances.list().filter((i) => i.status === 'online').map((row) => ({ row, target: instances.target(row.id) })),
          query.q,
          query.limit,
        ),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/chat/:id/message',
      summary: 'Sends a message to an instance and relays its answer as it streams (the instance\'s NDJSON lines).',
      params: idParams,
      body: z.strictObject({ prompt: z.string().min(1).max(100_000), sessionId: z.string().max(64).optional() }),
      produces: 'ndjson',
      item: StreamLineSchema,
      handler: async ({ params, body, reply }) => {
        const target = instances.target(params.id);
        const controller = new AbortController();
        // through the instance client: an https instance the manager started is reached with its certificate pinned
        const upstream = await send(target, '/api/message', {
          method: 'POST',
          headers: { ...authHeaders(target.token), 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: controller.signal,
        }).catch((err: unknown) => {
          throw new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} did not answer (${reachError(err)}).`);
        });
        reply.hijack();
        reply.raw.writeHead(upstream.status, { 'content-type': upstream.headers['content-type'] ?? 'application/x-ndjson', 'cache-control': 'no-store' });
        reply.raw.on('close', () => controller.abort());
        upstream.body.on('error', () => reply.raw.destroy()).pipe(reply.raw);
      },
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/git/:id/status',
      summary: 'The branch and changed files of a local instance\'s working directory (read-only).',
      params: idParams,
      response: z.object({ workingDir: z.string(), branch: z.string().nullable(), files: z.array(z.object({ path: z.string(), index: z.string(), worktree: z.string() })) }),
      handler: async ({ params }) => {
        const dir = workingDir(params.id);
        return { workingDir: dir, ...(await gitStatus(dir)) };
      },
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/git/:id/log',
      summary: 'Recent commits of a local instance\'s working directory.',
      params: idParams,
      query: z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(20) }),
      response: z.object({ commits: z.array(z.object({ hash: z.string(), author: z.string(), date: z.number(), subject: z.string() })) }),
      handler: async ({ params, query }) => ({ commits: await gitLog(workingDir(params.id), query.limit) }),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/git/:id/diff',
      summary: 'Lines added and removed per changed file (against HEAD).',
      params: idParams,
      response: z.object({ files: z.array(z.object({ path: z.string(), added: z.number().nullable(), removed: z.number().nullable() })) }),
      handler: async ({ params }) => ({ files: await gitDiffSummary(workingDir(params.id)) }),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/git/:id/file-diff',
      summary: 'The diff of one file (a path inside the working directory; anything else is refused).',
      params: idParams,
      query: z.strictObject({ path: z.string().min(1).max(4096) }),
      response: z.object({ path: z.string(), diff: z.string() }),
      handler: async ({ params, query }) => ({ path: query.path, diff: await gitFileDiff(workingDir(params.id), query.path) }),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/connectors/credentials',
      errors: [404],
      summary: 'Issues (or replaces) the connector credential of an instance, shown once; its agent sends it as X-Svc-Connector.',
      body: z.strictObject({ instanceId: z.string().min(1).max(64) }),
      status: 201,
      response: z.object({ instanceId: z.string(), credential: z.string() }),
      handler: ({ body }) => connectors.issue(body.instanceId),
    }),
    route({
      method: 'DELETE',
      url: '/api/dashboard/connectors/credentials/:id',
      summary: 'Revokes the connector credential of an instance.',
      params: idParams,
      response: z.object({ deleted: z.string() }),
      handler: ({ params }) => {
        connectors.revoke(params.id);
        return { deleted: params.id };
      },
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/connectors/board',
      summary: 'An agent adds a board item (needs its instance\'s connector credential in X-Svc-Connector; audited as the agent\'s).',
      body: z.strictObject({ title: z.string().trim().min(1).max(500), detail: z.string().max(20_000).optional(), lane: z.enum(BOARD_LANES).optional() }),
      status: 201,
      response: BoardItemSchema,
      handler: ({ request, body }) => connectors.addBoardItem(credential(request.headers), body),
    }),
    route({
      method: 'PATCH',
      url: '/api/dashboard/connectors/board/:id',
      summary: 'An agent moves a board item (connector credential required; audited).',
      params: idParams,
      body: z.strictObject({ lane: z.enum(BOARD_LANES) }),
      response: BoardItemSchema,
      handler: ({ request, params, body }) => connectors.moveBoardItem(credential(request.headers), params.id, body.lane),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/connectors/notes',
      summary: 'An agent leaves a note (connector credential in X-Svc-Connector; stored and audited as the agent\'s, optionally about a board item).',
      body: z.strictObject({ body: z.string().trim().min(1).max(20_000), title: z.string().trim().min(1).max(200).optional(), boardItemId: z.string().min(1).max(64).optional() }),
      status: 201,
      response: NoteSchema,
      handler: ({ request, body }) => connectors.addNote(credential(request.headers), body),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/connectors/notes',
      summary: 'The notes agents left, newest first (of one instance with instanceId).',
      query: z.strictObject({ instanceId: z.string().min(1).max(64).optional(), limit: z.coerce.number().int().min(1).max(500).default(100) }),
      response: z.object({ notes: z.array(NoteSchema) }),
      handler: ({ query }) => ({ notes: connectors.listNotes(query) }),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/connectors/audit',
      summary: 'Every write made through a connector, newest first, with the instance whose agent made it.',
      query: z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
      response: z.object({ entries: z.array(z.object({ id: z.number().int(), instanceId: z.string(), actor: z.literal('agent'), action: z.string(), targetId: z.string().nullable(), summary: z.string(), createdAt: z.number() })) }),
      handler: ({ query }) => ({ entries: connectors.auditLog(query.limit) }),
    }),
  ]);
};
