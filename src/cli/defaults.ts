// The default port of the core server, apart from src/cli/target.ts so that `svc --help` can print it
// without loading what finding a server needs (the lock file, TLS).
export const DEFAULT_PORT = 3457;
