export * from '../signing/postgres-signing-secret-store';
