// What a schema migration is: a version, a name, and the change it makes (in one transaction).
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}
