export * from './kafka-test-support';
