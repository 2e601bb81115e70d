// Versioned schema migrations. A migration is never edited once released: add a new one.
// Each file holds one migration; this list is the only place that orders them.
import type { Migration } from './migration.ts';
import { m001Core } from './001-core.ts';
import { m002Agent } from './002-agent.ts';
import { m003WebRouting } from './003-web-routing.ts';
import { m004QuotaObservations } from './004-quota-observations.ts';
import { m005Memory } from './005-memory.ts';
import { m006Mcp } from './006-mcp.ts';
import { m007Skills } from './007-skills.ts';

export type { Migration };

export const migrations: readonly Migration[] = [m001Core, m002Agent, m003WebRouting, m004QuotaObservations, m005Memory, m006Mcp, m007Skills];
