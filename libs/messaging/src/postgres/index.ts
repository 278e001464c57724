export * from '../signing/postgres-signing-secret-store';
export * from '../signing/postgres-signing-secret-migrations';
