export * from './command-envelope';
export * from './command-errors';
export * from './command-outcome';
export * from './decode-command';
export * from './command-dispatch';
export * from './command-consumer';
