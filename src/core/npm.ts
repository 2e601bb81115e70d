// npm installs into a prefix of svc's own (never global): the package spec's rules and the npm
// process, run with an argv (no shell) so nothing in a spec is ever read as shell or as an option.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { AppError, badRequest } from './errors.ts';

/** A registry spec: `name`, `@scope/name`, optionally `@version-or-tag`. */
const REGISTRY_SPEC = /^((?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*)(?:@[A-Za-z0-9.^~<>=|* -]+)?$/;

export type PackageSpec = { kind: 'registry'; name: string; spec: string } | { kind: 'local'; path: string; spec: string };

/** What a package spec names: a registry package, or a local directory or tarball (absolute path). */
export function parsePackageSpec(spec: string): PackageSpec {
  if (isAbsolute(spec)) {
    if (!existsSync(spec)) throw badRequest('INVALID_REQUEST', `'${spec}' does not exist. Give an npm package name or the absolute path of a package directory or .tgz.`);
    return { kind: 'local', path: spec, spec };
  }
  const m = REGISTRY_SPEC.exec(spec);
  if (!m) throw badRequest('INVALID_REQUEST', `'${spec}' is not an npm package name (like 'some-package' or '@scope/name@1.2.3') or an absolute path.`);
  return { kind: 'registry', name: m[1]!, spec };
}

export function prefixDependencies(prefix: string): Record<string, string> {
  const file = join(prefix, 'package.json');
  if (!existsSync(file)) return {};
  return (JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
}

/** The longest an install may take: a registry that never answers, or an install script that never ends. */
export const NPM_INSTALL_TIMEOUT_MS = 5 * 60_000;
/**
 * One retry of a failed fetch, after 2 to 5 s. npm's own default (two, after 10 then up to 60 s) kept a person waiting
 * over a minute for "no network" (an unreachable registry refuses at once); a registry that is only slow is not
 * retried sooner by this, since a slow answer is not a failed fetch.
 */
const FETCH_RETRIES = ['--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000'];

/**
 * `npm install --prefix <prefix> -- <spec>`; resolves with the installed package's name. `onLine`
 * gets each output line; a failure is an AppError with `code` (502, or 504 past `timeoutMs`, when npm is
 * killed) that says nothing was kept.
 */
export async function npmInstall(options: {
  prefix: string;
  spec: PackageSpec;
  env: NodeJS.ProcessEnv;
  npm?: string;
  onLine(line: string): void;
  code: 'MCP_INSTALL_FAILED' | 'SKILL_INSTALL_FAILED';
  timeoutMs?: number;
}): Promise<string> {
  const { prefix, spec, code } = options;
  mkdirSync(prefix, { recursive: true, mode: 0o700 });
  const before = prefixDependencies(prefix);
  const tail: string[] = [];
  const exit = await new Promise<number>((resolve, reject) => {
    const child = spawn(options.npm ?? 'npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', ...FETCH_RETRIES, '--', spec.spec], {
      cwd: prefix,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const split = (chunk: Buffer) =>
      chunk.toString('utf8').split(/\r?\n/).filter((l) => l.trim()).forEach((line) => {
        tail.push(line);
        if (tail.length > 3) tail.shift();
        options.onLine(line);
      });
    child.stdout.on('data', split);
    child.stderr.on('data', split);
    const timeoutMs = options.timeoutMs ?? NPM_INSTALL_TIMEOUT_MS;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new AppError(504, code, `npm install did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped (${tail.join(' | ') || 'no output'}); check that the npm registry can be reached. Nothing was registered.`));
    }, timeoutMs);
    child.on('error', (err) => reject(new AppError(502, code, `could not run npm: ${err.message}. Nothing was registered.`)));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve(status ?? 1);
    });
  });
  if (exit !== 0) throw new AppError(502, code, `npm install ended with exit code ${exit}: ${tail.join(' | ') || 'no output'}. Nothing was registered.`);
  if (spec.kind === 'registry') return spec.name;
  const after = prefixDependencies(prefix);
  const name = Object.keys(after).find((n) => before[n] !== after[n]) ?? Object.keys(after).find((n) => after[n]!.includes(spec.path));
  if (!name) throw new AppError(502, code, `npm did not record which package '${spec.path}' is. Nothing was registered.`);
  return name;
}
