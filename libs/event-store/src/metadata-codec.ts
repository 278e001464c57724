import type { EventMetadataRecord } from './event-store';

/**
 * Event metadata as stored: short keys, and fields at their usual value left out
 * (no causation, correlation = command, schema version 1). It is the largest part of a
 * small event, and stored once per event.
 */
interface StoredMetadata {
  t: string;
  s: string;
  c: string;
  a: string;
  o: string;
  k?: string | null;
  r?: string;
  v?: number;
}

export function encodeMetadata(m: EventMetadataRecord): string {
  const stored: StoredMetadata = { t: m.tenantId, s: m.sessionId, c: m.commandId, a: m.actor, o: m.occurredAt };
  if (m.causationId !== null) stored.k = m.causationId;
  if (m.correlationId !== m.commandId) stored.r = m.correlationId;
  if (m.schemaVersion !== 1) stored.v = m.schemaVersion;
  return JSON.stringify(stored);
}

/** Reads both the compact form and the long form (rows written before the codec existed). */
export function decodeMetadata(raw: string | object): EventMetadataRecord {
  const value = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Partial<StoredMetadata> & Partial<EventMetadataRecord>;
  if (value.commandId !== undefined) return value as EventMetadataRecord;
  return {
    tenantId: value.t!,
    sessionId: value.s!,
    commandId: value.c!,
    causationId: value.k ?? null,
    correlationId: value.r ?? value.c!,
    actor: value.a!,
    occurredAt: value.o!,
    schemaVersion: value.v ?? 1,
  };
}
