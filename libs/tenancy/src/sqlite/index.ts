export * from '../sqlite-api-key-store';
export * from '../encryption/sqlite-data-key-store';
