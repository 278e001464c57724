export * from './in-memory-event-store';
