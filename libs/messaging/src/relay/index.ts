export * from './checkpoint-store';
export * from './event-relay';
