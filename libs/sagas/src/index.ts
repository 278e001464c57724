export * from './retry-policy';
export * from './compensation-channel';
export * from './channels/http-channel';
export * from './channels/inline-channel';
export * from './channels/bus-channel';
export * from './rollback-saga';
export * from './rollback-subscription';
export * from './session-runtime';
