export * from './in-process-message-bus';
