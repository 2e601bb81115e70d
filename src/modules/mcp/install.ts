// POST /api/mcp/install: `npm install` of one package into <home>/mcp (an npm prefix of svc's own,
// never global), run with an argv (no shell), its output published line by line as `mcp_install`
// events. The server is registered only when the install worked and the package has a binary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, badRequest, conflict } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { npmInstall, parsePackageSpec } from '../../core/npm.ts';
import { MCP_NAME_PATTERN } from '../../protocol/mcp.ts';

const MAX_LOG_LINES = 200;

export interface InstallRequest {
  package: string;
  name?: string;
  args?: string[];
  env?: Record<string, string>;
}

export interface Installed {
  installId: string;
  /** The stdio server to register. */
  server: { name: string; transport: 'stdio'; command: string; args: string[]; env: Record<string, string> };
  log: string[];
}

export interface InstallDeps {
  /** <home>/mcp */
  prefix: string;
  /** The npm executable (default `npm` on PATH). */
  npm?: string;
  env(): NodeJS.ProcessEnv;
  progress(event: { installId: string; package: string; status: 'running' | 'ok' | 'error'; line?: string; message?: string }): void;
}

export class McpInstaller {
  private busy = false;

  constructor(private readonly deps: InstallDeps) {}

  async install(request: InstallRequest): Promise<Installed> {
    const spec = parsePackageSpec(request.package);
    if (request.name !== undefined && !MCP_NAME_PATTERN.test(request.name)) throw badRequest('INVALID_MCP_SERVER', `name '${request.name}': letters, digits, "_" and "-" only.`);
    if (this.busy) throw conflict('MCP_INSTALL_BUSY', 'Another MCP install is running. Wait for its mcp_install event with status ok or error.');
    this.busy = true;
    const installId = newId('mcpi');
    const log: string[] = [];
    const progress = (status: 'running' | 'ok' | 'error', extra: { line?: string; message?: string } = {}) =>
      this.deps.progress({ installId, package: request.package, status, ...extra });
    try {
      progress('running', { message: `npm install ${request.package}` });
      const name = await npmInstall({
        prefix: this.deps.prefix,
        spec,
        env: this.deps.env(),
        npm: this.deps.npm,
        code: 'MCP_INSTALL_FAILED',
        onLine: (line) => {
          if (log.length < MAX_LOG_LINES) log.push(line);
          progress('running', { line });
        },
      });
      const bin = binOf(this.deps.prefix, name, request.name);
      const server = {
        name: request.name ?? serverName(bin),
        transport: 'stdio' as const,
        command: join(this.deps.prefix, 'node_modules', '.bin', bin),
        args: request.args ?? [],
        env: request.env ?? {},
      };
      progress('ok', { message: `installed ${name}; registered as '${server.name}'` });
      return { installId, server, log };
    } catch (err) {
      progress('error', { message: (err as Error).message });
      throw err;
    } finally {
      this.busy = false;
    }
  }
}

/** The binary to run: the package's only one, or the one named like the requested server name or the package. */
function binOf(prefix: string, pkg: string, wanted: string | undefined): string {
  const manifest = JSON.parse(readFileSync(join(prefix, 'node_modules', pkg, 'package.json'), 'utf8')) as { name: string; bin?: string | Record<string, string> };
  const bins = typeof manifest.bin === 'string' ? [manifest.name.replace(/^@[^/]+\//, '')] : Object.keys(manifest.bin ?? {});
  const base = manifest.name.replace(/^@[^/]+\//, '');
  const bin = bins.length === 1 ? bins[0] : bins.find((b) => b === wanted) ?? bins.find((b) => b === base);
  if (!bin) {
    throw new AppError(422, 'MCP_INSTALL_FAILED', bins.length
      ? `${pkg} has several binaries (${bins.join(', ')}); give "name" as the one to run. Nothing was registered.`
      : `${pkg} has no binary to run as an MCP server. Nothing was registered.`);
  }
  return bin;
}

/** A server name from a binary name (`@x/some.server` → `some-server`). */
function serverName(bin: string): string {
  const name = bin.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 64);
  return name || 'mcp-server';
}
