export * from './message-bus';
export * from './in-process/in-process-message-bus';
export * from './kafka';
export * from './commands';
export * from './relay';
export * from './signing';
