export * from './cli';
export * from './commands/projections';
