export * from './message-bus';
export * from './commands';
export * from './relay';
export * from './signing';
export * from './kafka/kafka-config';
export * from './kafka/logger';
