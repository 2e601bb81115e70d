// The NATS subjects of the fleet (docs/fleet.md). Every machine's subjects sit under its own prefix, so one
// permission (`svc.fleet.m.<id>.>`) is all a machine may touch; the hub may touch every subject.

/** A joining machine asks here, as the public join user, with an invite's code. */
export const JOIN_SUBJECT = 'svc.fleet.join';

/** The only user that needs no key: it may publish the join request and read its answer, nothing else. */
export const JOIN_USER = { user: 'svc-join', pass: 'svc-join' } as const;

/** The inbox prefix of a join (the join user may subscribe to nothing else). */
export const JOIN_INBOX_PREFIX = '_INBOX_JOIN';

const MACHINE_ROOT = 'svc.fleet.m';

/** Everything of one machine: what its user may publish and subscribe to. */
export const machineSubjects = (machineId: string) => `${MACHINE_ROOT}.${machineId}.>`;

/** A machine's heartbeat: its name, version and instances, every few seconds. */
export const heartbeatSubject = (machineId: string) => `${MACHINE_ROOT}.${machineId}.heartbeat`;

/** The hub reads every machine's heartbeat here. */
export const ALL_HEARTBEATS = `${MACHINE_ROOT}.*.heartbeat`;

/** The hub's requests to a machine (`status`, `credentials`, `open`); only the hub may publish here. */
export const requestSubject = (machineId: string, what: string) => `${MACHINE_ROOT}.${machineId}.request.${what}`;

/** A tunnel's frames from the hub to the machine (under `request.`: only the hub may send them). */
export const tunnelToMachine = (machineId: string, tunnel: string) => requestSubject(machineId, `t.${tunnel}`);

/** A tunnel's frames from the machine to the hub. */
export const tunnelToHub = (machineId: string, tunnel: string) => `${MACHINE_ROOT}.${machineId}.t.${tunnel}`;

/** The hub reads every machine's tunnel frames here. */
export const ALL_TUNNELS_TO_HUB = `${MACHINE_ROOT}.*.t.*`;

/** A machine's reports on work items (its claims and ends), requests to the hub. */
export const workReportSubject = (machineId: string) => `${MACHINE_ROOT}.${machineId}.work`;
export const ALL_WORK_REPORTS = `${MACHINE_ROOT}.*.work`;

/** The JetStream stream of work items, and where an item for `target` ('any' or a machine id) goes. */
export const WORK_STREAM = 'SVC_WORK';
export const WORK_SUBJECTS = 'svc.fleet.work.>';
export const workSubject = (target: string) => (target === 'any' ? 'svc.fleet.work.any' : `svc.fleet.work.m.${target}`);
/** The durable consumer machines pull `target`'s items from. */
export const workConsumer = (target: string) => (target === 'any' ? 'any' : `m-${target}`);

/**
 * A machine's instance's public events, each as its wire frame, kept by the hub's JetStream stream `SVC_EVENTS` until
 * the hub has relayed them (under the machine's prefix: a machine can publish only its own instances' events).
 */
export const EVENTS_STREAM = 'SVC_EVENTS';
export const ALL_INSTANCE_EVENTS = `${MACHINE_ROOT}.*.ev.*`;
export const instanceEventsSubject = (machineId: string, key: string) => `${MACHINE_ROOT}.${machineId}.ev.${key}`;
/** The hub's durable consumer of one instance's events: where it stands survives the hub's restarts. */
export const eventsConsumer = (machineId: string, key: string) => `ev-${machineId}-${key}`;

/** What a machine publishes to pull from a consumer and acknowledge its messages (JetStream's API subjects). */
export const workConsumerApi = (consumer: string) => [
  `$JS.API.CONSUMER.INFO.${WORK_STREAM}.${consumer}`,
  `$JS.API.CONSUMER.MSG.NEXT.${WORK_STREAM}.${consumer}`,
  `$JS.ACK.${WORK_STREAM}.${consumer}.>`,
];

/** The tunnel a frame's subject names (its last token). */
export const tunnelOfSubject = (subject: string) => subject.slice(subject.lastIndexOf('.') + 1);

/** The machine id a heartbeat subject names. */
export function machineOfSubject(subject: string): string | undefined {
  const parts = subject.split('.');
  return parts.length >= 4 && `${parts[0]}.${parts[1]}.${parts[2]}` === MACHINE_ROOT ? parts[3] : undefined;
}

/** The inbox prefix of a machine's own requests (only its user may read it). */
export const machineInboxPrefix = (machineId: string) => `_INBOX_${machineId}`;
