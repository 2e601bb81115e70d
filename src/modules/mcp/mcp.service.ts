// The canonical MCP list: validation, write-only secrets (env values and headers), and what each run
// gets. The list changes only through PUT /api/mcp and a successful install.
import { badRequest } from '../../core/errors.ts';
import { REDACTED } from '../../protocol/settings.ts';
import { McpServerSchema, type McpServer, type RunMcpServer } from '../../protocol/mcp.ts';
import type { EventBus } from '../../events/bus.ts';
import type { McpRepo } from './mcp.repo.ts';

export interface McpServiceDeps {
  repo: McpRepo;
  bus: EventBus;
  /** Whether a provider id exists (the one provider registry). */
  isProvider(id: string): boolean;
}

type SecretMap = Record<string, string>;

const secretsOf = (s: McpServer): SecretMap => (s.transport === 'stdio' ? s.env : s.headers);
const mask = (map: SecretMap): SecretMap => Object.fromEntries(Object.keys(map).map((k) => [k, REDACTED]));

/** What a change of the list did, by server name (for the audit log: names only, never a value). */
export function listChanges(before: readonly McpServer[], after: readonly McpServer[]): { added: string[]; removed: string[]; updated: string[] } {
  const was = new Map(before.map((s) => [s.name, JSON.stringify(s)]));
  const now = new Set(after.map((s) => s.name));
  return {
    added: after.filter((s) => !was.has(s.name)).map((s) => s.name),
    removed: before.filter((s) => !now.has(s.name)).map((s) => s.name),
    updated: after.filter((s) => was.has(s.name) && was.get(s.name) !== JSON.stringify(s)).map((s) => s.name),
  };
}

export class McpService {
  private servers: McpServer[];

  constructor(private readonly deps: McpServiceDeps) {
    this.servers = deps.repo.list();
  }

  /** The list as GET /api/mcp shows it: secret values masked. */
  redacted(): McpServer[] {
    return this.servers.map((s) => (s.transport === 'stdio' ? { ...s, env: mask(s.env) } : { ...s, headers: mask(s.headers) }));
  }

  /** The whole list, secrets included (for a sync into the user's own config files). */
  all(): readonly McpServer[] {
    return this.servers;
  }

  /**
   * Replaces the list. Each entry is validated on its own (the error names its index and name); a
   * secret sent as `***` keeps the stored value of the same server and key.
   */
  replace(input: readonly unknown[]): McpServer[] {
    const next = input.map((raw, i) => this.validate(raw, `servers[${i}]`));
    const seen = new Set<string>();
    for (const [i, server] of next.entries()) {
      if (seen.has(server.name)) throw badRequest('INVALID_MCP_SERVER', `Two MCP servers are named '${server.name}'. Give each a unique name.`, { field: `servers[${i}].name` });
      seen.add(server.name);
    }
    this.save(next);
    return this.redacted();
  }

  /** Adds or replaces one server by name (an install registers what it installed). */
  upsert(raw: unknown): McpServer {
    const server = this.validate(raw, 'server');
    const next = this.servers.filter((s) => s.name !== server.name);
    const at = this.servers.findIndex((s) => s.name === server.name);
    next.splice(at < 0 ? next.length : at, 0, server);
    this.save(next);
    return this.redacted().find((s) => s.name === server.name)!;
  }

  has(name: string): boolean {
    return this.servers.some((s) => s.name === name);
  }

  /** The enabled servers meant for this provider, as its adapter receives them. */
  forRun(provider: string): RunMcpServer[] {
    return this.servers
      .filter((s) => s.enabled && (!s.providers?.length || s.providers.includes(provider)))
      .map((s) =>
        s.transport === 'stdio'
          ? { name: s.name, transport: 'stdio', command: s.command, args: s.args, env: s.env }
          : { name: s.name, transport: s.transport, url: s.url, headers: s.headers },
      );
  }

  /** Every secret value (redacted from traces). */
  secretValues(): string[] {
    return this.servers.flatMap((s) => Object.values(secretsOf(s)));
  }

  private validate(raw: unknown, where: string): McpServer {
    const parsed = McpServerSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = [where, ...issue.path].join('.');
      throw badRequest('INVALID_MCP_SERVER', `${field}: ${issue.message}. Fix this entry and send the list again.`, { field });
    }
    const server = parsed.data;
    for (const id of server.providers ?? []) {
      if (!this.deps.isProvider(id)) throw badRequest('INVALID_MCP_SERVER', `${where}.providers: '${id}' is not a provider id. Use the ids of GET /api/cli-registry.`, { field: `${where}.providers` });
    }
    const stored = this.servers.find((s) => s.name === server.name);
    const secrets = secretsOf(server);
    for (const [key, value] of Object.entries(secrets)) {
      if (value !== REDACTED) continue;
      const kept = stored && stored.transport === server.transport ? secretsOf(stored)[key] : undefined;
      if (kept === undefined) {
        const field = `${where}.${server.transport === 'stdio' ? 'env' : 'headers'}.${key}`;
        throw badRequest('INVALID_MCP_SERVER', `${where} ('${server.name}'): '${key}' is '${REDACTED}' but no value is stored for it. Send the value itself.`, { field });
      }
      secrets[key] = kept;
    }
    return server;
  }

  private save(next: McpServer[]): void {
    this.deps.repo.replaceAll(next);
    this.servers = next;
    this.deps.bus.publish('mcp_changed', { servers: this.redacted() });
  }
}
