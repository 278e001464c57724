export * from './eventstoredb-event-store';
export { globalPositionOf, readPositionOf } from './position';
export { serverEventId, toEventData, toStoredEvent } from './event-mapping';
export { StreamNames } from './stream-names';
export { toPortError } from './errors';
