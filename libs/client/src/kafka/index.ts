export * from './signed-command-producer';
