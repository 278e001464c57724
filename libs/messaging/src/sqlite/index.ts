export * from '../relay/sqlite-checkpoint-store';
export * from '../signing/sqlite-signing-secret-store';
