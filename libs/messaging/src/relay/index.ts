/** CheckpointStore moved to @rewind/event-store/subscriptions; re-exported while the apps import it from here. */
export { InMemoryCheckpointStore, type CheckpointStore } from '@rewind/event-store/subscriptions';
export * from './event-relay';
