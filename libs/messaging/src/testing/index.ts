export * from './message-bus.contract';
