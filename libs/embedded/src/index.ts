export * from './rewind';
export * from './tools';
export * from './components';
export * from './workspace';
