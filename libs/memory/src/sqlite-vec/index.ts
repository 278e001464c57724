export * from './sqlite-vector-index';
export * from './sqlite-policy-store';
