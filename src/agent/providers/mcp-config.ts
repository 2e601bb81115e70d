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

/** OpenCode config `mcp`: local servers take the command line as one array. */
export function opencodeMcp(servers: readonly RunMcpServer[]): Json {
  return byName(servers, (s) =>
    s.transport === 'stdio'
      ? { type: 'local', command: [s.command, ...s.args], environment: nonEmpty(s.env), enabled: true }
      : { type: 'remote', url: s.url, headers: nonEmpty(s.headers), enabled: true },
  );
}

/** Codex `[mcp_servers.<name>]` tables as `(key, TOML value)` pairs (for `-c key=value` or a config file). */
export function codexMcpEntries(servers: readonly RunMcpServer[]): [string, string][] {
  const table = (map: Record<string, string>) =>
    `{${Object.entries(map).map(([k, v]) => `${tomlString(k)}=${tomlString(v)}`).join(',')}}`;
  const entries: [string, string][] = [];
  for (const s of servers) {
    const key = `mcp_servers.${s.name}`;
    if (s.transport === 'stdio') {
      entries.push([`${key}.command`, tomlString(s.command)], [`${key}.args`, `[${s.args.map(tomlString).join(',')}]`]);
      if (Object.keys(s.env).length) entries.push([`${key}.env`, table(s.env)]);
    } else {
      entries.push([`${key}.url`, tomlString(s.url)]);
      if (Object.keys(s.headers).length) entries.push([`${key}.http_headers`, table(s.headers)]);
    }
  }
  return entries;
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
