// The default ports of the core server and the manager dashboard, apart from src/cli/target.ts so that `svc --help` can print it
// without loading what finding a server needs (the lock file, TLS).
export const DEFAULT_PORT = 3457;
export const DEFAULT_DASHBOARD_PORT = 24576;
