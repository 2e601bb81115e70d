import type { FLEET_MACHINE_CHANGES } from '../../protocol/fleet.ts';

export type FleetMachineChange = (typeof FLEET_MACHINE_CHANGES)[number];
