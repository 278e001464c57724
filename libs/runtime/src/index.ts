export * from './backend';
