export { SEAL_STORE } from '../infrastructure/tokens';
