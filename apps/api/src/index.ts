export * from './create-app';
