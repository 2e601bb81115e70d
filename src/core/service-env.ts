// Whether this process runs as a service of the machine, and under which manager: the unit, agent or
// task `svc service install` writes sets SVC_SERVICE (src/service/). Pure: the environment is passed in.
export const SERVICE_MANAGERS = ['systemd', 'launchd', 'schtasks'] as const;
export type ServiceManager = (typeof SERVICE_MANAGERS)[number];

export function runningAs(env: NodeJS.ProcessEnv): ServiceManager | null {
  const value = env.SVC_SERVICE?.trim();
  return (SERVICE_MANAGERS as readonly string[]).includes(value ?? '') ? (value as ServiceManager) : null;
}
