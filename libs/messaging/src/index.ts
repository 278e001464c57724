export * from './message-bus';
export * from './in-process/in-process-message-bus';
