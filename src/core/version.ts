import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root and version, found once (works from src/ under tsx and from the dist/ bundle). */
const found = (() => {
  for (const rel of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const url = new URL(rel, import.meta.url);
      const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svc' && pkg.version) return { root: dirname(fileURLToPath(url)), version: pkg.version };
    } catch {
      // try the next location
    }
  }
  throw new Error('svc: cannot find its package.json');
})();

export const VERSION: string = found.version;
export const PACKAGE_ROOT: string = found.root;
/** The `svc` executable, for starting helper servers (the browser server) as child processes. */
export const SVC_BIN: string = `${found.root}/bin/svc.js`;
