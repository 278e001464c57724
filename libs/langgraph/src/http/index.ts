export * from './rewind-http-saver';
export * from './http-threads';
