export * from './envelope-signature';
export * from './signing-secret-store';
export * from './in-memory-signing-secret-store';
export * from './sqlite-signing-secret-store';
export * from './postgres-signing-secret-store';
