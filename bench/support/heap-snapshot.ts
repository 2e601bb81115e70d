// Reads a V8 heap snapshot (the JSON of HeapProfiler.takeHeapSnapshot or v8.writeHeapSnapshot): how many
// live objects each constructor has, and, against an earlier snapshot of the same process, what the
// objects made since then are held by. Used by the soak benchmark to name whatever a request leaves behind.
//
// The format is a flat table (node_fields / edge_fields in snapshot.meta): nodes, then each node's edges
// in order, an edge pointing at a node by its offset in the nodes array. A node's id stays the same across
// the snapshots of one process, which is how new objects are told from old ones.

interface SnapshotJson {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface Growth {
  /** The chain from the first object that existed before (left) up to its holders, as type:name.edge. */
  holder: string;
  objects: number;
  bytes: number;
}

export interface HeapGraph {
  /** Live objects per constructor name (nodes of type "object"): of the names given, or of every name. */
  countByName(names?: readonly string[]): Record<string, number>;
  /** The ids of every node, to compare a later snapshot with. */
  ids(): Set<number>;
  /**
   * The nodes not in `before`, grouped by what holds them: from each new node, up its strong retainers
   * through new nodes to the first old one, and three holders above it; the engine's own nodes in one
   * group. Largest groups first.
   */
  growthSince(before: Set<number>, top?: number): Growth[];
}

/** Nodes that are the engine's own (compiled code, maps, roots), not the program's data: one group of their own. */
const ENGINE_TYPES = new Set(['code', 'hidden', 'synthetic', 'object shape']);
const ENGINE_GROUP = "(the engine's own: compiled code, object shapes)";

export function readHeapSnapshot(text: string): HeapGraph {
  const json = JSON.parse(text) as SnapshotJson;
  const meta = json.snapshot.meta;
  const nodeWidth = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const at = (field: string) => meta.node_fields.indexOf(field);
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = [at('type'), at('name'), at('id'), at('self_size'), at('edge_count')];
  const [edgeTypeAt, edgeNameAt, edgeToAt] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, strings } = json;
  const nodeCount = nodes.length / nodeWidth;

  const typeOf = (n: number) => nodeTypes[nodes[n * nodeWidth + typeAt]!]!;
  const nameOf = (n: number) => strings[nodes[n * nodeWidth + nameAt]!]!;
  const idOf = (n: number) => nodes[n * nodeWidth + idAt]!;
  const describe = (n: number) => {
    const name = typeOf(n) === 'object' || typeOf(n) === 'closure' ? nameOf(n) : '';
    return `${typeOf(n)}:${name.length > 40 ? `${name.slice(0, 40)}…` : name}`;
  };

  /** For each node, one strong retainer and the edge from it (the first found), or -1. */
  function firstRetainers(): { retainer: Int32Array; edge: Int32Array } {
    const retainer = new Int32Array(nodeCount).fill(-1);
    const edge = new Int32Array(nodeCount).fill(-1);
    for (let n = 0, e = 0; n < nodeCount; n++) {
      const count = nodes[n * nodeWidth + edgeCountAt]!;
      for (let k = 0; k < count; k++, e += edgeWidth) {
        if (edgeTypes[edges[e + edgeTypeAt]!] === 'weak') continue;
        const to = edges[e + edgeToAt]! / nodeWidth;
        if (retainer[to] === -1) {
          retainer[to] = n;
          edge[to] = e;
        }
      }
    }
    return { retainer, edge };
  }

  return {
    countByName(names) {
      const counts = new Map((names ?? []).map((name) => [name, 0]));
      for (let n = 0; n < nodeCount; n++) {
        if (typeOf(n) !== 'object') continue;
        const name = nameOf(n);
        if (names === undefined || counts.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return Object.fromEntries(counts);
    },
    ids() {
      const ids = new Set<number>();
      for (let n = 0; n < nodeCount; n++) ids.add(idOf(n));
      return ids;
    },
    growthSince(before, top = 10) {
      const { retainer, edge } = firstRetainers();
      const edgeLabel = (e: number) => {
        const type = edgeTypes[edges[e + edgeTypeAt]!];
        return type === 'element' || type === 'hidden' ? '[]' : String(strings[edges[e + edgeNameAt]!] ?? '').slice(0, 40);
      };
      const groups = new Map<string, Growth>();
      const add = (key: string, n: number) => {
        const group = groups.get(key) ?? { holder: key, objects: 0, bytes: 0 };
        group.objects++;
        group.bytes += nodes[n * nodeWidth + sizeAt]!;
        groups.set(key, group);
      };
      for (let n = 0; n < nodeCount; n++) {
        if (before.has(idOf(n))) continue;
        if (ENGINE_TYPES.has(typeOf(n))) {
          add(ENGINE_GROUP, n);
          continue;
        }
        let holder = n;
        for (let steps = 0; steps < 64 && retainer[holder]! >= 0 && !before.has(idOf(holder)); steps++) holder = retainer[holder]!;
        const chain = [describe(holder)];
        for (let up = holder, k = 0; k < 3 && retainer[up]! >= 0; k++) {
          chain.push(`${describe(retainer[up]!)}.${edgeLabel(edge[up]!)}`);
          up = retainer[up]!;
        }
        add(chain.join(' <- '), n);
      }
      return [...groups.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top);
    },
  };
}
