export * from './travel-service';
