export * from './backends';
export * from './inspect';
export * from './oracle';
export * from './workload';
