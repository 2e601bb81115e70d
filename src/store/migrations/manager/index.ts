// The manager dashboard's database (<manager home>/dashboard.db) has its own schema history, apart
// from an instance's svc.db: the two are never the same file.
import type { Migration } from '../migration.ts';
import { m001Instances } from './001-instances.ts';
import { m002BoardSchedule } from './002-board-schedule.ts';
import { m003Connectors } from './003-connectors.ts';
import { m004Executive } from './004-executive.ts';
import { m005Settings } from './005-settings.ts';
import { m006Notes } from './006-notes.ts';
import { m007Fleet } from './007-fleet.ts';
import { m008FleetInstances } from './008-fleet-instances.ts';
import { m009FleetWork } from './009-fleet-work.ts';
import { m010Push } from './010-push.ts';

export const managerMigrations: readonly Migration[] = [m001Instances, m002BoardSchedule, m003Connectors, m004Executive, m005Settings, m006Notes, m007Fleet, m008FleetInstances, m009FleetWork, m010Push];
