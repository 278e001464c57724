export * from './stall-watch';
export * from './readiness';
export * from './health-server';
export * from './metrics-registry';
export * from './logging';
export * from './metered-event-store';
export * from './store-size';
export * from './tracing';
