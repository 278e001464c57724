export * from './postgres-event-store';
