export * from './rewind-config';
export * from './env-reader';
export * from './workspace-settings';
