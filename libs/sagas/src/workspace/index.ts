export * from './workspace-files';
