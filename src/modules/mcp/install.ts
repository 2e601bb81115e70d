// POST /api/mcp/install: `npm install` of one package into <home>/mcp (an npm prefix of svc's own,
// never global), run with an argv (no shell), its output published line by line as `mcp_install`
// events. The server is registered only when the install worked and the package has a binary.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { AppError, badRequest, conflict } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { MCP_NAME_PATTERN } from '../../protocol/mcp.ts';

/** A registry spec: `name`, `@scope/name`, optionally `@version-or-tag`. */
const REGISTRY_SPEC = /^((?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*)(?:@[A-Za-z0-9.^~<>=|* -]+)?$/;
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

/** What a package spec names: a registry package, or a local directory or tarball (absolute path). */
export function parsePackageSpec(spec: string): { kind: 'registry'; name: string } | { kind: 'local'; path: string } {
  if (isAbsolute(spec)) {
    if (!existsSync(spec)) throw badRequest('INVALID_REQUEST', `'${spec}' does not exist. Give an npm package name or the absolute path of a package directory or .tgz.`);
    return { kind: 'local', path: spec };
  }
  const m = REGISTRY_SPEC.exec(spec);
  if (!m) throw badRequest('INVALID_REQUEST', `'${spec}' is not an npm package name (like 'some-mcp-server' or '@scope/name@1.2.3') or an absolute path.`);
  return { kind: 'registry', name: m[1]! };
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
      mkdirSync(this.deps.prefix, { recursive: true, mode: 0o700 });
      const before = dependencies(this.deps.prefix);
      progress('running', { message: `npm install ${request.package}` });
      const args = ['install', '--prefix', this.deps.prefix, '--no-audit', '--no-fund', '--', spec.kind === 'local' ? spec.path : request.package];
      const code = await this.npm(args, (line) => {
        if (log.length < MAX_LOG_LINES) log.push(line);
        progress('running', { line });
      });
      if (code !== 0) throw new AppError(502, 'MCP_INSTALL_FAILED', `npm install ended with exit code ${code}: ${log.slice(-3).join(' | ') || 'no output'}. Nothing was registered.`, { log });
      const name = spec.kind === 'registry' ? spec.name : addedDependency(before, dependencies(this.deps.prefix), spec.path);
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

  private npm(args: string[], onLine: (line: string) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.deps.npm ?? 'npm', args, { cwd: this.deps.prefix, env: this.deps.env(), stdio: ['ignore', 'pipe', 'pipe'] });
      const split = (chunk: Buffer) => chunk.toString('utf8').split(/\r?\n/).filter((l) => l.trim()).forEach(onLine);
      child.stdout.on('data', split);
      child.stderr.on('data', split);
      child.on('error', (err) => reject(new AppError(502, 'MCP_INSTALL_FAILED', `could not run npm: ${err.message}. Nothing was registered.`)));
      child.on('close', (code) => resolve(code ?? 1));
    });
  }
}

function dependencies(prefix: string): Record<string, string> {
  const file = join(prefix, 'package.json');
  if (!existsSync(file)) return {};
  return (JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
}

/** The package a local install added (or, when it was there already, the one whose spec names the path). */
function addedDependency(before: Record<string, string>, after: Record<string, string>, path: string): string {
  const added = Object.keys(after).filter((name) => before[name] !== after[name]);
  const found = added[0] ?? Object.keys(after).find((name) => after[name]!.endsWith(path) || (statSync(path).isDirectory() && after[name]!.includes(path)));
  if (!found) throw new AppError(502, 'MCP_INSTALL_FAILED', `npm did not record which package '${path}' is. Nothing was registered.`);
  return found;
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
