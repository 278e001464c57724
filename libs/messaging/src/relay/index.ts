export * from './checkpoint-store';
export * from './sqlite-checkpoint-store';
export * from './event-relay';
export * from './postgres-checkpoint-store';
