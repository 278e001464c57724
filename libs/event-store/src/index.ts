export * from './event-store';
export * from './metadata-codec';
