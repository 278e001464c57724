export * from './rewind-saver';
