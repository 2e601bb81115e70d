// The security audit log: append-only, hash-chained entries in SQLite of security-relevant actions
// (refused tokens, settings and secrets changed by name, channel sends, pairing…), its routes and its check.
export { SecurityAudit, type AuditInput, type AuditSink } from './audit.service.ts';
export type { AuditRouteDeps } from './audit.routes.ts';
export { canonicalJson, entryHash, verifyChain, GENESIS_HASH } from './chain.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadAuditRoutes = () => import('./audit.routes.ts').then((m) => m.auditRoutes);
