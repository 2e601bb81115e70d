import type { Migration } from './migration.ts';
import { createExecutiveTables } from './executive-tables.ts';

// The executive agent of this instance (src/modules/executive): it sees only this instance.
export const m012Executive: Migration = {
  version: 12,
  name: 'executive: transcript, watches, completions, confirmations, audit',
  up: createExecutiveTables,
};
