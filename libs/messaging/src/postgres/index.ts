export * from '../relay/postgres-checkpoint-store';
export * from '../signing/postgres-signing-secret-store';
