// MCP and skills group: the canonical MCP list (GET/PUT /api/mcp), the opt-in export into the user's
// CLI configs (POST /api/mcp/sync) and installs from the npm registry (POST /api/mcp/install).
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { NPM_INSTALL_TIMEOUT_MS } from '../../core/npm.ts';
import { routeGroup, route } from '../../http/routes.ts';
import { McpListSchema } from '../../protocol/mcp.ts';
import { McpServerSchema, McpNameSchema } from '../../protocol/mcp.ts';
import type { AuditSink } from '../security-audit/index.ts';
import { listChanges, type McpService } from './mcp.service.ts';
import { SYNC_TARGET_IDS, type SyncTarget, type SyncReport } from './sync.ts';
import type { InstallRequest, McpInstaller } from './install.ts';

export interface McpRouteDeps {
  mcp: McpService;
  sync(targets: readonly SyncTarget[], dryRun: boolean): SyncReport[];
  installer: McpInstaller;
  /** MCP servers run with every agent: list changes, installs and syncs are audit entries. */
  audit: AuditSink;
  actorOf(address: string | undefined): string;
}

const StringList = z.array(z.string()).max(50);

const SyncReportSchema = z.object({
  target: z.enum(SYNC_TARGET_IDS),
  file: z.string(),
  status: z.enum(['written', 'unchanged', 'would-write', 'error']),
  backup: z.string().optional(),
  added: StringList,
  updated: StringList,
  removed: StringList,
  kept: z.array(z.string()),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
  message: z.string().optional(),
});

export const mcpRoutes = routeGroup('mcp', ({ mcp, sync, installer, audit, actorOf }: McpRouteDeps) => {
  return [
    route({
      method: 'GET',
      url: '/api/mcp',
      summary: 'The MCP servers every run gets (when enabled, and for the providers named), env and header values masked as ***.',
      response: McpListSchema,
      handler: () => ({ servers: mcp.redacted() }),
    }),
    route({
      method: 'PUT',
      url: '/api/mcp',
      summary: 'Replaces the MCP list. Each server is validated; an env or header value sent as *** keeps the stored one.',
      body: z.strictObject({ servers: z.array(z.unknown()).max(100) }),
      response: McpListSchema,
      handler: ({ body, request }) => {
        const before = mcp.all();
        const servers = mcp.replace(body.servers);
        const changes = listChanges(before, mcp.all());
        const names = [...changes.added, ...changes.removed, ...changes.updated];
        if (names.length) audit.record({ actor: actorOf(request.socket.remoteAddress), action: 'mcp.change', target: names.join(','), outcome: 'ok', details: changes });
        return { servers };
      },
    }),
    route({
      method: 'POST',
      url: '/api/mcp/sync',
      summary: 'Opt-in export into the user-level config files of the named CLIs: keeps every entry svc did not write, backs a file up before writing it, reports per file.',
      body: z.strictObject({
        targets: z.array(z.enum(SYNC_TARGET_IDS)).min(1, 'name at least one CLI').describe('The CLIs whose user-level config files to write'),
        dryRun: z.boolean().default(false).describe('Report what would change, write nothing'),
      }),
      response: z.object({ results: z.array(SyncReportSchema) }),
      handler: ({ body, request }) => {
        const results = sync(body.targets, body.dryRun);
        // it writes the user's own CLI config files, outside svc
        if (!body.dryRun) {
          audit.record({
            actor: actorOf(request.socket.remoteAddress),
            action: 'mcp.sync',
            target: body.targets.join(','),
            outcome: results.some((r) => r.status === 'error') ? 'failed' : 'ok',
            details: { results: results.map((r) => ({ target: r.target, file: r.file, status: r.status, added: r.added, updated: r.updated, removed: r.removed })) },
          });
        }
        return { results };
      },
    }),
    route({
      method: 'POST',
      url: '/api/mcp/install',
      errors: [502, 504],
      waitsOn: { what: 'npm', ms: NPM_INSTALL_TIMEOUT_MS + 10_000 },
      summary: 'npm install of an MCP server into <home>/mcp (never global), progress as mcp_install events; registers it (enabled) only when the install worked.',
      body: z.strictObject({
        package: z.string().min(1).max(500).describe('An npm package (name[@version]) or the absolute path of a package directory or .tgz'),
        name: McpNameSchema.optional().describe('The server name (default: from the binary)'),
        args: z.array(z.string()).max(100).optional(),
        env: z.record(z.string(), z.string()).optional(),
      }),
      response: z.object({ installId: z.string(), server: McpServerSchema, log: z.array(z.string()) }),
      handler: async ({ body, request }) => {
        const entry = { actor: actorOf(request.socket.remoteAddress), action: 'mcp.install', target: body.package };
        let installed;
        try {
          installed = await installer.install(body as InstallRequest);
        } catch (err) {
          audit.record({ ...entry, outcome: err instanceof AppError && err.status < 500 ? 'refused' : 'failed', details: { error: (err as { code?: string }).code ?? 'INTERNAL' } });
          throw err;
        }
        const server = mcp.upsert(installed.server);
        audit.record({ ...entry, outcome: 'ok', details: { server: server.name, command: installed.server.command } });
        return { installId: installed.installId, server, log: installed.log };
      },
    }),
  ];
});
