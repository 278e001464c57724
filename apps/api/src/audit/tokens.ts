export const SEAL_STORE = Symbol('SEAL_STORE');
