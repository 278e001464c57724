export const REWIND_CONFIG = Symbol('REWIND_CONFIG');
/** The process's Backend (@rewind/runtime): every store, opened once; InfrastructureModule closes it last. */
export const BACKEND = Symbol('BACKEND');
export const EVENT_STORE = Symbol('EVENT_STORE');
export const API_KEY_STORE = Symbol('API_KEY_STORE');
export const CHECKPOINT_STORE = Symbol('CHECKPOINT_STORE');
export const SEAL_STORE = Symbol('SEAL_STORE');
export const DATA_KEY_STORE = Symbol('DATA_KEY_STORE');
/** Kafka command signing keys, where the worker reads them (the backend's). */
export const SIGNING_KEY_STORE = Symbol('SIGNING_KEY_STORE');
/** Shared memory policies (PostgreSQL), or null: the memory index file keeps them. */
export const MEMORY_POLICY_STORE = Symbol('MEMORY_POLICY_STORE');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
export const SESSION_RUNTIME = Symbol('SESSION_RUNTIME');
export const RATE_LIMITER = Symbol('RATE_LIMITER');
/** The process's one SubscriptionHub: everything that follows the log, poked by each commit. */
export const SUBSCRIPTION_HUB = Symbol('SUBSCRIPTION_HUB');
