// MCP and skills group: the canonical MCP list (GET/PUT /api/mcp), the opt-in export into the user's
// CLI configs (POST /api/mcp/sync) and installs from the npm registry (POST /api/mcp/install).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { McpListSchema } from '../../protocol/mcp.ts';
import type { McpService } from './mcp.service.ts';

export interface McpRouteDeps {
  mcp: McpService;
}

export const mcpRoutes: FastifyPluginAsync<McpRouteDeps> = async (app, { mcp }) => {
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
  ]);
};
