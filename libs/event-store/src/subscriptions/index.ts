export * from './subscription';
export * from './checkpoint-store';
export * from './subscription-loop';
export * from './subscription-hub';
export * from './shared-log-reader';
export * from './lag';
export * from './locks';
