export const REWIND_CONFIG = Symbol('REWIND_CONFIG');
export const EVENT_STORE = Symbol('EVENT_STORE');
export const API_KEY_STORE = Symbol('API_KEY_STORE');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
export const SESSION_RUNTIME = Symbol('SESSION_RUNTIME');
export const RATE_LIMITER = Symbol('RATE_LIMITER');
/** The process's one SubscriptionHub: everything that follows the log, poked by each commit. */
export const SUBSCRIPTION_HUB = Symbol('SUBSCRIPTION_HUB');
