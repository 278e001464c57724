export * from './create-app';
export { EVENT_STORE } from './infrastructure/tokens';
export { LiveFeed } from './live/live-feed';
export { createValidationPipe } from './common/validation';
