export * from './rewind-config';
export * from './env-reader';
