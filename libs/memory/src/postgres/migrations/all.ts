import { memoryMigration1 } from './0001-memory-policies';
import { memoryMigration2 } from './0002-memory-index';
import type { MemoryMigration } from './memory-migration';

/** Every memory migration, in order, over the quoted schema name `s` (pure: loads no driver). */
export function memoryMigrations(s: string): MemoryMigration[] {
  return [memoryMigration1(s), memoryMigration2(s)];
}
