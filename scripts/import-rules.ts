// The import rules of src/ (docs/architecture.md), checked by test/architecture.test.ts and by
// `node --import tsx scripts/import-rules.ts`. Pure: give it the sources, it names every violation.
//
//   - layers import only downwards: servers → modules → (agent, events, store, http) → protocol → core;
//     the cli may import servers (lazily) and modules' public entries, never http;
//   - a module is imported through its index.ts only (its internals are its own);
//   - the HTTP kit (src/http) is imported only by servers and by modules' *.routes.ts files;
//   - no import cycles.
// Every import counts: `import type`, re-exports and dynamic `import()` alike.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

export interface Violation {
  rule: 'layer' | 'module-internals' | 'http-kit' | 'cycle' | 'unresolved';
  file: string;
  target: string;
  message: string;
}

/** What each top-level directory of src/ may import (besides itself). */
const LAYERS: Record<string, readonly string[]> = {
  core: [],
  protocol: ['core'],
  events: ['protocol', 'core'],
  store: ['protocol', 'core'],
  http: ['events', 'protocol', 'core'],
  agent: ['events', 'store', 'protocol', 'core'],
  modules: ['agent', 'events', 'store', 'http', 'protocol', 'core'],
  servers: ['modules', 'agent', 'events', 'store', 'http', 'protocol', 'core'],
  service: ['core'],
  cli: ['servers', 'modules', 'service', 'agent', 'store', 'protocol', 'core'],
};

const IMPORT = /(?:^|[\s;{}])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative imports of a source text (package imports are not ours to check). */
export function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2]!;
    if (spec.startsWith('.')) out.push(spec);
  }
  return out;
}

const layerOf = (file: string) => file.split('/')[1]!;

/** The module a file of src/modules belongs to: the deepest directory above it with an index.ts. */
function moduleOf(file: string, files: ReadonlySet<string>): string | undefined {
  if (layerOf(file) !== 'modules') return undefined;
  for (let dir = dirname(file); dir !== 'src/modules' && dir !== 'src'; dir = dirname(dir)) {
    if (files.has(`${dir}/index.ts`)) return dir;
  }
  return undefined;
}

/** `files`: paths like `src/agent/runtime.ts` → their source text. */
export function checkImports(files: ReadonlyMap<string, string>): Violation[] {
  const violations: Violation[] = [];
  const names = new Set(files.keys());
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const edges: string[] = [];
    for (const spec of importsOf(source)) {
      const target = normalize(join(dirname(file), spec));
      if (!names.has(target)) {
        violations.push({ rule: 'unresolved', file, target, message: `${file} imports ${spec}, which is not a file of src/` });
        continue;
      }
      edges.push(target);
      const from = layerOf(file);
      const to = layerOf(target);
      if (from !== to && !(LAYERS[from] ?? []).includes(to)) {
        violations.push({ rule: 'layer', file, target, message: `${from}/ may not import ${to}/ (${file} → ${target})` });
      }
      if (to === 'http' && from !== 'http' && from !== 'servers' && !file.endsWith('.routes.ts')) {
        violations.push({ rule: 'http-kit', file, target, message: `only servers and *.routes.ts files use the HTTP kit (${file} → ${target})` });
      }
      const ownModule = moduleOf(file, names);
      const targetModule = moduleOf(target, names);
      if (targetModule && targetModule !== ownModule && target !== `${targetModule}/index.ts`) {
        violations.push({ rule: 'module-internals', file, target, message: `${file} reaches into ${targetModule}: import its index.ts instead of ${target}` });
      }
    }
    graph.set(file, edges);
  }
  for (const cycle of findCycles(graph)) {
    violations.push({ rule: 'cycle', file: cycle[0]!, target: cycle.at(-1)!, message: `import cycle: ${cycle.join(' → ')}` });
  }
  return violations;
}

/** One cycle per strongly connected component (Tarjan), written as a path that returns to its start. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const self = (graph.get(node) ?? []).includes(node);
    if (component.length > 1 || self) cycles.push(pathWithin(graph, new Set(component), node));
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** A concrete cycle through `start` inside one strongly connected component (breadth-first). */
function pathWithin(graph: ReadonlyMap<string, readonly string[]>, members: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== start && at !== undefined; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(next) && next !== start) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** Reads every .ts file under `root`/src, keyed by its path relative to `root`. */
export function readSources(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(join(root, 'src'));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const violations = checkImports(readSources(join(dirname(new URL(import.meta.url).pathname), '..')));
  for (const v of violations) console.error(`${v.rule}: ${v.message}`);
  console.log(violations.length ? `${violations.length} import rule violations` : 'imports follow the rules');
  process.exit(violations.length ? 1 : 0);
}
