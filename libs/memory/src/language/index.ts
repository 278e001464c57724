export * from './detect-language';
export * from './language-routed-model';
export * from './language-spaces-index';
