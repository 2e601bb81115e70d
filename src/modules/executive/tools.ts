// The executive's tools, defined once: the MCP server of its CLI runs (mcp-script.ts) calls each over
// its route, and the realtime voice session (realtime-voice.ts) runs each here, server-side, on the
// same service. Inputs are zod schemas, sent to either model as JSON Schema.
import { z } from 'zod';
import { LIFECYCLE_ACTIONS } from '../../protocol/executive.ts';
import { WorkInputSchema } from '../fleet/index.ts';
import type { ExecutiveService } from './executive.service.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

// Inputs a tool shares with the route it calls (executive.routes.ts), defined once for both.
export const id = lazySchema(() => z.string().min(1).max(128));
const messageText = lazySchema(() => z.string().trim().min(1).max(100_000));
export const SendInput = lazySchema(() => z.strictObject({ instanceId: id, text: messageText }));
export const WatchInput = lazySchema(() => z.strictObject({ instanceId: id, requestId: id.optional() }));
export const FollowUpInput = lazySchema(() => z.strictObject({ text: messageText.optional() }));
export const EditDocsInput = lazySchema(() => z.strictObject({
  instanceId: id.optional(),
  path: z.string().min(1).max(500),
  operation: z.enum(['append_section', 'replace_section', 'apply_patch']),
  content: z.string().min(1).max(20 * 1024),
  reason: z.string().max(500).optional(),
}));

export interface CeoTool {
  name: string;
  description: string;
  input: z.ZodObject;
  /** The route the MCP script calls: `{arg}` in the path takes that argument; the rest (and `fixed`) is the body of a POST. */
  http: { method: 'GET' | 'POST'; path: string; fixed?: Record<string, string> };
  /** Runs the operation on the service, answering what its route answers. */
  run(service: ExecutiveService, args: Record<string, unknown>): unknown;
}

const tool = <S extends z.ZodObject>(t: Omit<CeoTool, 'input' | 'run'> & { input: S; run(service: ExecutiveService, args: z.infer<S>): unknown }): CeoTool =>
  t as unknown as CeoTool;

export const CEO_TOOLS: readonly CeoTool[] = [
  tool({
    name: 'list_instances',
    description: 'The instances you oversee: id, label, status, busy, owned.',
    input: lazySchema(() => z.strictObject({})),
    http: { method: 'GET', path: '/instances' },
    run: async (s) => ({ instances: await s.instances() }),
  }),
  tool({
    name: 'inspect_instance',
    description: 'One instance: its latest messages, current run and queue.',
    input: lazySchema(() => z.strictObject({ instanceId: id })),
    http: { method: 'GET', path: '/instances/{instanceId}' },
    run: (s, a) => s.inspect(a.instanceId),
  }),
  tool({
    name: 'send_message',
    description: 'Sends a message to an instance and watches it: its completion shows in list_pending.',
    input: SendInput,
    http: { method: 'POST', path: '/send' },
    run: (s, a) => s.send(a.instanceId, a.text),
  }),
  tool({
    name: 'watch_instance',
    description: 'Watches a request of an instance, or its next run.',
    input: WatchInput,
    http: { method: 'POST', path: '/watch' },
    run: (s, a) => s.watch(a.instanceId, a.requestId ?? null),
  }),
  tool({
    name: 'list_pending',
    description: 'Completions of watched requests not handled yet.',
    input: lazySchema(() => z.strictObject({})),
    http: { method: 'GET', path: '/pending' },
    run: (s) => ({ pending: s.pending() }),
  }),
  tool({
    name: 'summarize_completion',
    description: 'The result of a completion: short or detailed.',
    input: lazySchema(() => z.strictObject({ key: id, format: z.enum(['short', 'detailed']).optional() })),
    http: { method: 'POST', path: '/pending/{key}/summarize' },
    run: (s, a) => s.summarize(a.key, a.format ?? 'short'),
  }),
  tool({
    name: 'continue_completion',
    description: 'Reads a completion into the transcript; with text, sends a follow-up to the same instance.',
    input: lazySchema(() => z.strictObject({ key: id, ...FollowUpInput.shape })),
    http: { method: 'POST', path: '/pending/{key}/continue' },
    run: (s, a) => s.continue(a.key, a.text),
  }),
  tool({
    name: 'ack_completion',
    description: 'Marks a completion acknowledged.',
    input: lazySchema(() => z.strictObject({ key: id })),
    http: { method: 'POST', path: '/pending/{key}/ack' },
    run: (s, a) => s.mark(a.key, 'acknowledged'),
  }),
  tool({
    name: 'dismiss_completion',
    description: 'Dismisses a completion.',
    input: lazySchema(() => z.strictObject({ key: id })),
    http: { method: 'POST', path: '/pending/{key}/dismiss' },
    run: (s, a) => s.mark(a.key, 'dismissed'),
  }),
  tool({
    name: 'query',
    description: "A read-only command in an instance's project: git status|log|show|diff, rg, ls, cat <file>.",
    input: lazySchema(() => z.strictObject({ instanceId: id, command: z.string().min(1).max(2000) })),
    http: { method: 'POST', path: '/query', fixed: { source: 'repo' } },
    run: async (s, a) => ({ source: 'repo', ...(await s.query(a.instanceId, a.command)), untrusted: true }),
  }),
  tool({
    name: 'edit_docs',
    description: "Edits Markdown: README.md or docs/ of an instance's project, or your notes (no instanceId).",
    input: EditDocsInput,
    http: { method: 'POST', path: '/docs/edit' },
    run: (s, a) => s.editDocs(a),
  }),
  tool({
    name: 'queue_work',
    description: 'Queues work for the fleet (the dashboard\'s machines): a machine that can run it takes it, and another finishes it if that one dies. Its end shows as a fleet_work event and in GET /api/dashboard/work.',
    input: WorkInputSchema,
    http: { method: 'POST', path: '/work' },
    run: (s, a) => s.queueWork(a),
  }),
  tool({
    name: 'lifecycle',
    description: 'Starts, stops or restarts an instance the manager owns. Needs the id of a confirmation a person created and approved for exactly this action.',
    input: lazySchema(() => z.strictObject({ action: z.enum(LIFECYCLE_ACTIONS), instanceId: id, confirmationId: id.optional() })),
    http: { method: 'POST', path: '/instances/{instanceId}/{action}' },
    run: async (s, a) => ({ ok: true, instance: await s.lifecycle(a.action, a.instanceId, a.confirmationId) }),
  }),
];

/** A tool's input as JSON Schema (what either model is given). */
export function toolParameters(t: CeoTool): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(t.input) as Record<string, unknown>;
  return schema;
}
