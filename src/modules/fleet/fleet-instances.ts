// The instances of fleet machines as instances of the dashboard: each one a machine's heartbeat lists is registered
// (origin 'fleet', with a stable id from its machine and key) and reached through the hub's tunnel to its machine, so
// the proxy, the event bridge, health checks, schedule, board and executive treat it as any other instance.
import type { Machine } from '../../protocol/fleet.ts';
import type { FleetReach, InstanceRecord, InstancesService } from '../dashboard/index.ts';
import type { FleetMachineChange } from './events.ts';
import type { FleetHandle } from './fleet.routes.ts';
import { fleetInstanceId, fleetInstanceUrl, parseFleetInstanceUrl, tunnelledUrl } from './instance-names.ts';

/** How the dashboard reaches an instance on a fleet machine: the hub's tunnel to it. */
export function fleetReach(fleet: FleetHandle): FleetReach {
  return {
    target(r: InstanceRecord) {
      const hub = fleet.hub;
      const at = parseFleetInstanceUrl(r.url);
      const machine = at && hub?.machine(at.machineId);
      const own = machine?.instances.find((i) => i.key === at!.key);
      if (!hub || !at) throw new Error(`${r.label} runs on a fleet machine, and the fleet is off`);
      // (a machine that no longer lists the instance is refused by the tunnel's open, which says why: the URL then only
      // names a host for the request line)
      return {
        url: own ? tunnelledUrl(own.url) : 'http://127.0.0.1',
        token: r.token,
        connect: () => hub.openTunnel(at.machineId, at.key),
        // its events from the hub's JetStream, where they wait out any outage of the link, the hub or its nats-server
        events: (handlers) => hub.events.read(at.machineId, at.key, handlers),
      };
    },
    machineName: (machineId) => fleet.hub?.machine(machineId)?.name,
  };
}

/** Keeps the dashboard's registry in step with what the machines say they run. */
export class FleetInstanceSync {
  /** Machines whose instances are being registered (a token asked for): one at a time each. */
  private readonly syncing = new Set<string>();

  constructor(
    private readonly fleet: FleetHandle,
    private readonly instances: InstancesService,
  ) {}

  /** A heartbeat: new instances are registered with their token, gone ones forgotten; the token is asked again when the machine comes back. */
  heartbeat(machine: Machine, cameOnline: boolean): void {
    const hub = this.fleet.hub;
    if (!hub || this.syncing.has(machine.id)) return;
    const known = new Map(this.instances.fleetRecords(machine.id).map((r) => [r.id, r]));
    const label = (url: string) => (machine.instances.length === 1 ? machine.name : `${machine.name} ${new URL(url).host}`);
    const wanted = machine.instances.map((i) => ({ id: fleetInstanceId(machine.id, i.key), key: i.key, url: fleetInstanceUrl(machine.id, i.key), label: label(i.url) }));
    const unchanged = wanted.length === known.size && wanted.every((w) => known.get(w.id)?.label === w.label);
    if (unchanged && !cameOnline) return;
    this.syncing.add(machine.id);
    void (async () => {
      const records = [];
      for (const w of wanted) {
        // a machine that cannot give its token is still listed: its checks then say it refused the hub (401)
        const token = cameOnline || !known.has(w.id) ? await hub.credentials(machine.id, w.key).catch(() => null) : known.get(w.id)!.token;
        records.push({ id: w.id, url: w.url, label: w.label, token, createdAt: Date.now() });
      }
      await this.instances.adoptFleetInstances(machine.id, records);
    })().finally(() => this.syncing.delete(machine.id));
  }

  /** A machine came, went or was revoked: its instances are checked again now, or forgotten. */
  machine(machine: Machine, change: FleetMachineChange): void {
    if (change === 'revoked') this.instances.forgetMachine(machine.id);
    else if (change === 'offline') void this.instances.refreshMachine(machine.id);
  }
}
