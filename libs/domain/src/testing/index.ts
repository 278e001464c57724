export * from './arbitraries';
export * from './recorded';
