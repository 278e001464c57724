export * from './retry-policy';
export * from './compensation-channel';
export * from './channels/http-channel';
export * from './channels/egress-policy';
export * from './channels/inline-channel';
export * from './channels/bus-channel';
export * from './rollback-saga';
export * from './session-runtime';
