export * from './envelope-signature';
export * from './signing-secret-store';
export * from './in-memory-signing-secret-store';
