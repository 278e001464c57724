export * from './logger';
export * from './kafka-config';
export * from './topic-admin';
export * from './kafka-message-bus';
