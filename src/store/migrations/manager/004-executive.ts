import type { Migration } from '../migration.ts';
import { createExecutiveTables } from '../executive-tables.ts';

// The manager's executive agent (src/modules/executive): it sees every instance.
export const m004Executive: Migration = {
  version: 4,
  name: 'executive: transcript, watches, completions, confirmations, audit',
  up: createExecutiveTables,
};
