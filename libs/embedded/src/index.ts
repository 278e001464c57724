export * from './rewind';
export * from './tools';
