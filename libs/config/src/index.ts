export * from './rewind-config';
