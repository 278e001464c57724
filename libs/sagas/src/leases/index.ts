export * from './rollback-lease-store';
export * from './in-memory-rollback-lease-store';
export * from './rollback-leases';
