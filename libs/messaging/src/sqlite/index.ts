/** Moved to @rewind/event-store/sqlite; re-exported while the apps import it from here. */
export { SqliteCheckpointStore } from '@rewind/event-store/sqlite';
export * from '../signing/sqlite-signing-secret-store';
