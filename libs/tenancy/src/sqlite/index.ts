export * from '../sqlite-api-key-store';
