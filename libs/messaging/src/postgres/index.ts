/** Moved to @rewind/event-store/postgres; re-exported while the apps import it from here. */
export { PostgresCheckpointStore } from '@rewind/event-store/postgres';
export * from '../signing/postgres-signing-secret-store';
