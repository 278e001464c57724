export * from './checkpoint-saver';
export * from './rewind-threads';
export * from './rewind-saver';
export * from './thread-id';
export * from './thoughts';
