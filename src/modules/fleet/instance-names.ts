// The names the dashboard gives an instance on a fleet machine (pure): its id, its registry URL, and the URL requests
// through the machine's tunnel are made to.
const SCHEME = 'fleet:';

/** The dashboard's id of an instance on a machine: stable across restarts, port changes and renames. */
export const fleetInstanceId = (machineId: string, key: string) => `fleet_${machineId}_${key}`;

/** The registry's URL of such an instance (unique; the instance's own URL is its machine's business). */
export const fleetInstanceUrl = (machineId: string, key: string) => `${SCHEME}//${machineId}/${key}`;

/** The machine and key a registry URL names, or undefined for another URL. Pure. */
export function parseFleetInstanceUrl(url: string): { machineId: string; key: string } | undefined {
  const match = /^fleet:\/\/([^/]+)\/([0-9a-f]{12})$/.exec(url);
  return match ? { machineId: match[1]!, key: match[2]! } : undefined;
}

/**
 * The URL requests through the tunnel are made to: the instance's own, always plain http (the tunnel joins its
 * server after TLS; the NATS link is the transport's security), so its Host header is what the instance expects.
 */
export function tunnelledUrl(ownUrl: string): string {
  const url = new URL(ownUrl);
  return `http://${url.host}`;
}
