// MCP and skills group: the canonical MCP list (GET/PUT /api/mcp), the opt-in export into the user's
// CLI configs (POST /api/mcp/sync) and installs from the npm registry (POST /api/mcp/install).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { McpListSchema } from '../../protocol/mcp.ts';
import { McpServerSchema, McpNameSchema } from '../../protocol/mcp.ts';
import type { McpService } from './mcp.service.ts';
import { SYNC_TARGET_IDS, type SyncTarget, type SyncReport } from './sync.ts';
import type { InstallRequest, McpInstaller } from './install.ts';

export interface McpRouteDeps {
  mcp: McpService;
  sync(targets: readonly SyncTarget[], dryRun: boolean): SyncReport[];
  installer: McpInstaller;
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

export const mcpRoutes: FastifyPluginAsync<McpRouteDeps> = async (app, { mcp, sync, installer }) => {
  defineRoutes(app, 'mcp', [
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
      handler: ({ body }) => ({ servers: mcp.replace(body.servers) }),
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
      handler: ({ body }) => ({ results: sync(body.targets, body.dryRun) }),
    }),
    route({
      method: 'POST',
      url: '/api/mcp/install',
      summary: 'npm install of an MCP server into <home>/mcp (never global), progress as mcp_install events; registers it (enabled) only when the install worked.',
      body: z.strictObject({
        package: z.string().min(1).max(500).describe('An npm package (name[@version]) or the absolute path of a package directory or .tgz'),
        name: McpNameSchema.optional().describe('The server name (default: from the binary)'),
        args: z.array(z.string()).max(100).optional(),
        env: z.record(z.string(), z.string()).optional(),
      }),
      response: z.object({ installId: z.string(), server: McpServerSchema, log: z.array(z.string()) }),
      handler: async ({ body }) => {
        const installed = await installer.install(body as InstallRequest);
        return { installId: installed.installId, server: mcp.upsert(installed.server), log: installed.log };
      },
    }),
  ]);
};
