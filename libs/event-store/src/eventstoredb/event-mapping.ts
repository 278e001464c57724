import { createHash } from 'node:crypto';
import type { AllStreamRecordedEvent, EventData, JSONType, RecordedEvent } from '@eventstore/db-client';
import { CANONICAL_UUID } from '../event-id-codec';
import type { EventMetadataRecord, NewEvent, StoredEvent } from '../event-store';

/**
 * An event's metadata on the server: the port's record, the fields the port keeps beside it,
 * and EventStoreDB's own `$correlationId`/`$causationId` (what its projections and UI read).
 */
export interface ServerEventMetadata extends EventMetadataRecord {
  $correlationId: string;
  $causationId?: string;
  parentVersion: number | null;
  /** The port's event id when the server's (a UUID) could not be it. */
  eventId?: string;
  /** The stored form of the Idempotency-Key this append claimed (see idempotency.ts). */
  idempotencyKey?: string;
}

/** A UUID (version 5 layout) named by `name`: the same name always gives the same id. */
export function nameBasedUuid(name: string): string {
  const h = createHash('sha1').update(name, 'utf8').digest('hex');
  const variant = ((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

/**
 * The server requires a UUID per event; the port allows any id. A canonical lower-case UUID is
 * used as it is; any other id is replaced by a UUID named by it (so a retried append carries
 * the same ids, which the server recognises) and kept in the metadata to be read back.
 */
export function serverEventId(portEventId: string): string {
  return CANONICAL_UUID.test(portEventId) ? portEventId : nameBasedUuid(`rewind-event-id:${portEventId}`);
}

export function toEventData(event: NewEvent, idempotencyKey?: string): EventData {
  const id = serverEventId(event.eventId);
  const metadata: ServerEventMetadata = {
    ...event.metadata,
    $correlationId: event.metadata.correlationId,
    ...(event.metadata.causationId !== null ? { $causationId: event.metadata.causationId } : {}),
    parentVersion: event.parentVersion,
    ...(id !== event.eventId ? { eventId: event.eventId } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
  return {
    id,
    contentType: 'application/json',
    type: event.type,
    // Any JSON value: the client writes JSON.stringify(data) and reads JSON.parse back, so
    // numbers, booleans and null round-trip although JSONType names only objects, arrays and strings.
    data: (event.data ?? null) as JSONType,
    metadata: metadata as unknown as JSONType,
  };
}

function isServerMetadata(value: unknown): value is ServerEventMetadata {
  const m = value as Partial<ServerEventMetadata> | null;
  return typeof m === 'object' && m !== null && typeof m.tenantId === 'string' && typeof m.commandId === 'string' && 'parentVersion' in m;
}

/** The port's event for a recorded server event of port stream `streamId`. */
export function toStoredEvent(recorded: RecordedEvent | AllStreamRecordedEvent, streamId: string, globalPosition: number): StoredEvent {
  const m = recorded.metadata;
  if (!recorded.isJson || !isServerMetadata(m)) {
    throw new Error(
      `Event ${recorded.id} of stream ${recorded.streamId} was not written by Rewind (no Rewind metadata): Rewind's streams must only be written by Rewind.`,
    );
  }
  return {
    eventId: m.eventId ?? recorded.id,
    type: recorded.type,
    data: recorded.data,
    parentVersion: m.parentVersion,
    metadata: {
      tenantId: m.tenantId,
      sessionId: m.sessionId,
      commandId: m.commandId,
      causationId: m.causationId,
      correlationId: m.correlationId,
      actor: m.actor,
      occurredAt: m.occurredAt,
      schemaVersion: m.schemaVersion,
      ...(m.traceparent !== undefined ? { traceparent: m.traceparent } : {}),
    },
    streamId,
    // Server revisions count from 0; the port's versions from 1.
    streamVersion: Number(recorded.revision) + 1,
    globalPosition,
  };
}

/** The idempotency key an event's append claimed, if any (for recovering an interrupted claim). */
export function claimedKeyOf(recorded: RecordedEvent): string | undefined {
  return isServerMetadata(recorded.metadata) ? recorded.metadata.idempotencyKey : undefined;
}
