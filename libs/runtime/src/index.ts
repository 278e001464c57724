export * from './backend';
export { MissingOptionalPackageError } from './load-optional';
