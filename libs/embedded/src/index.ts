export * from './rewind';
