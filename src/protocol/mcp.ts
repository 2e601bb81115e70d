// MCP servers on the wire (GET/PUT /api/mcp) and as the runtime hands them to provider adapters.
// The canonical list lives in svc; every run gets the enabled ones through its CLI's own per-run
// mechanism (agent/providers/<id>/adapter.ts), never through the user's config files.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

/** A server's name: it becomes a key in TOML/JSON configs and part of tool names (`mcp__<name>__<tool>`). */
export const MCP_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const McpNameSchema = lazySchema(() => z
  .string()
  .regex(MCP_NAME_PATTERN, 'letters, digits, "_" and "-", starting with a letter or digit (at most 64)'));

const StringMap = lazySchema(() => z.record(z.string(), z.string()));

const common = {
  name: McpNameSchema,
  enabled: z.boolean().default(true),
  /** Provider ids that get this server; absent or empty means every provider. */
  providers: z.array(z.string().min(1)).optional(),
};

export const McpStdioServerSchema = lazySchema(() => z.object({
  ...common,
  transport: z.literal('stdio'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Secret values: GET shows them as `***`; PUT with `***` keeps the stored value. */
  env: StringMap.default({}),
}));

export const McpRemoteServerSchema = lazySchema(() => z.object({
  ...common,
  /** `http` is streamable HTTP; `sse` the older HTTP+SSE transport. */
  transport: z.enum(['http', 'sse']),
  url: z.string().url().refine((u) => /^https?:\/\//.test(u), 'an http:// or https:// URL'),
  /** Secret values, like a stdio server's env. */
  headers: StringMap.default({}),
}));

export const McpServerSchema = lazySchema(() => z.discriminatedUnion('transport', [McpStdioServerSchema, McpRemoteServerSchema]));
export type McpServer = z.output<typeof McpServerSchema>;
export type McpServerInput = z.input<typeof McpServerSchema>;

export const McpListSchema = lazySchema(() => z.object({ servers: z.array(McpServerSchema) }));

/** What a provider adapter receives: one enabled server for this provider, secrets resolved. */
export type RunMcpServer =
  | { name: string; transport: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; transport: 'http' | 'sse'; url: string; headers: Record<string, string> };
