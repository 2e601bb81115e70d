// How each CLI's own config format spells an MCP server. Pure: the adapters put the result in a
// per-run file or argument, and the MCP module's sync writes the same shapes into user-level files.
import type { RunMcpServer } from '../../protocol/mcp.ts';

type Json = Record<string, unknown>;

const byName = (servers: readonly RunMcpServer[], entry: (s: RunMcpServer) => Json): Json =>
  Object.fromEntries(servers.map((s) => [s.name, entry(s)]));

const nonEmpty = (map: Record<string, string>) => (Object.keys(map).length > 0 ? map : undefined);

/** Claude Code `--mcp-config` / `.mcp.json`: `{mcpServers: {name: {type, …}}}`. */
export function claudeMcpServers(servers: readonly RunMcpServer[]): Json {
  return byName(servers, (s) =>
    s.transport === 'stdio'
      ? { type: 'stdio', command: s.command, args: s.args, env: s.env }
      : { type: s.transport, url: s.url, headers: s.headers },
  );
}

/** Copilot CLI `--additional-mcp-config` / `~/.copilot/mcp-config.json`: like Claude's, plus the tools it may use. */
export function copilotMcpServers(servers: readonly RunMcpServer[]): Json {
  return byName(servers, (s) =>
    s.transport === 'stdio'
      ? { type: 'local', command: s.command, args: s.args, env: s.env, tools: ['*'] }
      : { type: s.transport, url: s.url, headers: s.headers, tools: ['*'] },
  );
}

/** Gemini CLI settings `mcpServers`: `url` is SSE, `httpUrl` streamable HTTP; `trust` skips its confirmations. */
export function geminiMcpServers(servers: readonly RunMcpServer[], trust: boolean): Json {
  return byName(servers, (s) => {
    const base = s.transport === 'stdio'
      ? { command: s.command, args: s.args, env: nonEmpty(s.env) }
      : { [s.transport === 'http' ? 'httpUrl' : 'url']: s.url, headers: nonEmpty(s.headers) };
    return trust ? { ...base, trust: true } : base;
  });
}

/** The Agent Client Protocol's `McpServer`s (session/new): environment and headers as `{name, value}` pairs. */
export function acpMcpServers(servers: readonly RunMcpServer[]): Json[] {
  const pairs = (map: Record<string, string>) => Object.entries(map).map(([name, value]) => ({ name, value }));
  return servers.map((s) =>
    s.transport === 'stdio'
      ? { name: s.name, command: s.command, args: s.args, env: pairs(s.env) }
      : { type: s.transport, name: s.name, url: s.url, headers: pairs(s.headers) },
  );
}

/** OpenCode config `mcp`: local servers take the command line as one array. */
export function opencodeMcp(servers: readonly RunMcpServer[]): Json {
  return byName(servers, (s) =>
    s.transport === 'stdio'
      ? { type: 'local', command: [s.command, ...s.args], environment: nonEmpty(s.env), enabled: true }
      : { type: 'remote', url: s.url, headers: nonEmpty(s.headers), enabled: true },
  );
}

/** Codex `[mcp_servers.<name>]` tables: streamable HTTP only for remote servers (`http_headers`). */
export function codexMcpServers(servers: readonly RunMcpServer[]): Json {
  return byName(servers, (s) =>
    s.transport === 'stdio'
      ? { command: s.command, args: s.args, ...(nonEmpty(s.env) ? { env: s.env } : {}) }
      : { url: s.url, ...(nonEmpty(s.headers) ? { http_headers: s.headers } : {}) },
  );
}

/** The same tables as `-c mcp_servers.<name>.<key>=<TOML value>` overrides. */
export function codexMcpEntries(servers: readonly RunMcpServer[]): [string, string][] {
  return Object.entries(codexMcpServers(servers)).flatMap(([name, entry]) =>
    Object.entries(entry as Json).map(([key, value]): [string, string] => [`mcp_servers.${name}.${key}`, tomlInline(value)]),
  );
}

/** A TOML inline value of strings, arrays of strings and tables of strings. */
function tomlInline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tomlInline).join(',')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([k, v]) => `${tomlString(k)}=${tomlInline(v)}`).join(',')}}`;
  return tomlString(String(value));
}

/** A TOML basic string for `-c key=<value>` (codex parses the value as TOML). */
export function tomlString(text: string): string {
  const escaped = text.replace(/[\\"\u0000-\u001f\u007f]/g, (ch) => {
    switch (ch) {
      case '\\':
        return '\\\\';
      case '"':
        return '\\"';
      case '\n':
        return '\\n';
      case '\t':
        return '\\t';
      case '\r':
        return '\\r';
      default:
        return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
  return `"${escaped}"`;
}
