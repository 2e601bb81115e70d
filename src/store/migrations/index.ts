// Versioned schema migrations. A migration is never edited once released: add a new one.
// Each file holds one migration; this list is the only place that orders them.
import type { Migration } from './migration.ts';
import { m001Core } from './001-core.ts';
import { m002Agent } from './002-agent.ts';
import { m003WebRouting } from './003-web-routing.ts';
import { m004QuotaObservations } from './004-quota-observations.ts';
import { m005Memory } from './005-memory.ts';
import { m006Orchestration } from './006-orchestration.ts';
import { m007Goals } from './007-goals.ts';
import { m008SecurityAudit } from './008-security-audit.ts';
import { m009Channels } from './009-channels.ts';
import { m010Mcp } from './010-mcp.ts';
import { m011Skills } from './011-skills.ts';
import { m012Executive } from './012-executive.ts';
import { m013Permissions } from './013-permissions.ts';
import { m014Push } from './014-push.ts';
import { m015Worktrees } from './015-worktrees.ts';
import { m016TracePins } from './016-trace-pins.ts';
import { m017ModelEndpoints } from './017-model-endpoints.ts';

export type { Migration };

export const migrations: readonly Migration[] = [
  m001Core,
  m002Agent,
  m003WebRouting,
  m004QuotaObservations,
  m005Memory,
  m006Orchestration,
  m007Goals,
  m008SecurityAudit,
  m009Channels,
  m010Mcp,
  m011Skills,
  m012Executive,
  m013Permissions,
  m014Push,
  m015Worktrees,
  m016TracePins,
  m017ModelEndpoints,
];
