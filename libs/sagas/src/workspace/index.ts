export * from './workspace-files';
export * from './workspace-channel';
export * from './provenance';
