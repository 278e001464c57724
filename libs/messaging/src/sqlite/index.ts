export * from '../signing/sqlite-signing-secret-store';
