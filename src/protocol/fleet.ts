// The fleet's resources (svc dashboard serve --fleet): invites, machines and the hub's state, shared by the
// manager, `svc fleet` and the dashboard page.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

/**
 * A line of text from another machine (a name, a version, a URL): no control character. Messages over NATS do not
 * pass the HTTP kit's input rule (src/http/validate.ts), so the fleet's own schemas apply it.
 */
const line = (max: number) => z.string().max(max).regex(/^[^\u0000-\u001F\u007F]*$/, 'no control characters');

export const NATS_STATES = ['starting', 'running', 'restarting', 'stopped'] as const;
/** A joined machine's connection to its hub (its svc serve's view, in /api/runtime). */
export const MEMBER_STATES = ['connecting', 'connected', 'reconnecting', 'revoked', 'closed'] as const;

/** What a `fleet_machine` event reports. */
export const FLEET_MACHINE_CHANGES = ['joined', 'online', 'offline', 'revoked'] as const;

export const FleetStatusSchema = lazySchema(() => z.object({
  enabled: z.boolean().describe('The dashboard was started with --fleet.'),
  /** Why the fleet is off or not working, and what to do about it. */
  reason: z.string().optional(),
  nats: z.enum(NATS_STATES).nullable(),
  /** The URL machines join and connect to (nats:// or tls://). */
  url: z.string().nullable(),
  /** SHA-256 of the hub's certificate, when it serves TLS: a joining machine pins it. */
  fingerprint: z.string().nullable(),
}));
export type FleetStatus = z.infer<typeof FleetStatusSchema>;

export const InviteSchema = lazySchema(() => z.object({
  id: z.string(),
  /** Shown once: the hub keeps only its hash. */
  code: z.string(),
  expiresAt: z.number(),
  /** The command to run on the machine that joins. */
  command: z.string(),
}));
export type Invite = z.infer<typeof InviteSchema>;

export const MachineInstanceSchema = lazySchema(() => z.object({
  /** Stable on its machine (from its home), so the hub gives it the same id on every heartbeat. */
  key: z.string().regex(/^[0-9a-f]{12}$/),
  url: line(2000),
  version: line(100),
  provider: line(100).nullable(),
  busy: z.boolean(),
}));

export const MachineSchema = lazySchema(() => z.object({
  id: z.string().describe('Made by the hub when the machine joined: not its host name.'),
  name: z.string(),
  online: z.boolean(),
  lastSeen: z.number().nullable(),
  joinedAt: z.number(),
  version: z.string().nullable(),
  instances: z.array(MachineInstanceSchema),
}));
export type Machine = z.infer<typeof MachineSchema>;
export type MachineInstance = z.infer<typeof MachineInstanceSchema>;

/** What a machine's heartbeat carries. */
export const HeartbeatSchema = lazySchema(() => z.object({
  name: line(200).trim().min(1),
  version: line(100),
  instances: z.array(MachineInstanceSchema).max(100),
}));
export type Heartbeat = z.infer<typeof HeartbeatSchema>;

/** The join request a machine sends, and the hub's answer. */
export const JoinRequestSchema = lazySchema(() => z.object({
  code: z.string().max(100),
  publicKey: z.string().max(100),
  /** The key's signature of the code (fleet/creds.ts joinProof), base64url: the machine holds the key it presents. */
  signature: z.string().max(200),
  name: line(200).trim().min(1),
}));
export const JoinAnswerSchema = lazySchema(() => z.union([
  z.object({ ok: z.literal(true), machineId: z.string(), name: z.string() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]));
export type JoinAnswer = z.infer<typeof JoinAnswerSchema>;

/** The hub asks a machine to open a tunnel to one of its instances (`request.open`), or for its token (`request.credentials`). */
export const TunnelOpenSchema = lazySchema(() => z.object({
  tunnel: z.string().regex(/^[0-9a-f]{16}$/),
  instance: z.string().max(100),
}));
export const CredentialsRequestSchema = lazySchema(() => z.object({ instance: z.string().max(100) }));
/** A machine's answer to either: ok (with the instance's token, to `credentials`), or why not. */
export const MachineAnswerSchema = lazySchema(() => z.union([
  z.object({ ok: z.literal(true), token: z.string().optional() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]));
export type MachineAnswer = z.infer<typeof MachineAnswerSchema>;

/** A work item's life: waiting in the queue, run by a machine, or ended. */
export const WORK_STATES = ['queued', 'running', 'succeeded', 'failed'] as const;
/** One machine's try at an item; `abandoned`: the machine died or was revoked mid-run, and another took it. */
export const ATTEMPT_STATES = ['running', 'succeeded', 'failed', 'abandoned'] as const;

export const WorkAttemptSchema = lazySchema(() => z.object({
  machineId: z.string(),
  instanceId: z.string().nullable().describe('The dashboard id of the instance that ran it.'),
  runId: z.string().nullable().describe('The run (trace) id on that instance.'),
  status: z.enum(ATTEMPT_STATES),
  reason: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
}));

export const WorkItemSchema = lazySchema(() => z.object({
  id: z.string(),
  prompt: z.string(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  /** 'any', or the id of the machine that must run it. */
  machine: z.string(),
  workingDir: z.string().nullable(),
  status: z.enum(WORK_STATES),
  /** Where it runs or ran (the current attempt's). */
  machineId: z.string().nullable(),
  instanceId: z.string().nullable(),
  runId: z.string().nullable(),
  /** The agent's answer, when it succeeded. */
  answer: z.string().nullable(),
  /** Why it failed. */
  reason: z.string().nullable(),
  attempts: z.array(WorkAttemptSchema),
  createdAt: z.number(),
  updatedAt: z.number(),
}));
export type WorkItem = z.infer<typeof WorkItemSchema>;
export type WorkAttempt = z.infer<typeof WorkAttemptSchema>;

/** What the queue carries for an item: what a machine needs to decide it can run it, and to run it. */
export const WorkMessageSchema = lazySchema(() => z.object({
  id: z.string().max(100),
  prompt: z.string().max(100_000),
  provider: line(40).nullable(),
  model: line(200).nullable(),
  workingDir: line(4096).nullable(),
}));
export type WorkMessage = z.infer<typeof WorkMessageSchema>;

/** A machine tells the hub about an item: it takes it (`claim`, which the hub may refuse), or how its run ended. */
export const WorkReportSchema = lazySchema(() => z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('claim'),
    item: z.string().max(100),
    attempt: z.string().max(100),
    /** The instance's key on the machine, and the request id its run will have there. */
    instance: z.string().max(100),
    runId: z.string().max(200),
  }),
  z.object({
    kind: z.literal('end'),
    item: z.string().max(100),
    attempt: z.string().max(100),
    status: z.enum(['succeeded', 'failed']),
    answer: z.string().max(1_000_000).nullable(),
    reason: line(2000).nullable(),
  }),
]));
export type WorkReport = z.infer<typeof WorkReportSchema>;

/** /api/runtime's `fleet` of a machine that joined one. */
export const MemberStatusSchema = lazySchema(() => z.object({
  hub: z.string(),
  machineId: z.string(),
  name: z.string(),
  state: z.enum(MEMBER_STATES),
}));
export type MemberStatus = z.infer<typeof MemberStatusSchema>;
