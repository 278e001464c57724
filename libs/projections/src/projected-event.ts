import type { StoredEvent } from '@rewind/event-store';

const SESSION_PREFIX = 'session:';

/**
 * An event of the global log as the projectors read it: tenant and session taken from the
 * stream id (`session:<tenant>:<session>`, the authority for tenancy), text cleaned so that
 * PostgreSQL accepts it, timestamps normalized to ISO-8601 UTC. Never throws: a malformed
 * event must not wedge a projection (it is still audited).
 */
export interface ProjectedEvent {
  position: number;
  streamId: string;
  streamVersion: number;
  eventId: string;
  type: string;
  parentVersion: number | null;
  data: Record<string, unknown>;
  tenantId: string;
  /** null when the stream is not a session (e.g. `tool:<tenant>:<name>`). */
  sessionId: string | null;
  actor: string;
  occurredAt: string;
  commandId: string | null;
  correlationId: string | null;
  causationId: string | null;
}

/** PostgreSQL text cannot hold NUL; both databases get the same replacement so that they agree. */
export function cleanText(value: string): string {
  return value.includes('\u0000') ? value.replace(/\u0000/g, '\uFFFD') : value;
}

/** What `Date.toISOString()` writes (`YYYY-MM-DDTHH:mm:ss.sssZ`): kept as it is. */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function normalizeTimestamp(value: unknown): string {
  if (typeof value !== 'string') return '';
  if (CANONICAL.test(value)) return value;
  const time = Date.parse(value);
  return Number.isNaN(time) ? cleanText(value) : new Date(time).toISOString();
}

function optionalText(value: unknown): string | null {
  return typeof value === 'string' ? cleanText(value) : null;
}

export function toProjectedEvent(event: StoredEvent): ProjectedEvent {
  const metadata = (event.metadata ?? {}) as unknown as Record<string, unknown>;
  const streamId = event.streamId;
  let tenantId = typeof metadata.tenantId === 'string' ? metadata.tenantId : '';
  let sessionId: string | null = null;
  if (streamId.startsWith(SESSION_PREFIX)) {
    const separator = streamId.indexOf(':', SESSION_PREFIX.length);
    if (separator > 0) {
      tenantId = streamId.slice(SESSION_PREFIX.length, separator);
      sessionId = streamId.slice(separator + 1);
    }
  } else if (!tenantId) {
    tenantId = streamId.split(':')[1] ?? '';
  }
  const data = event.data !== null && typeof event.data === 'object' && !Array.isArray(event.data) ? (event.data as Record<string, unknown>) : {};
  return {
    position: event.globalPosition,
    streamId: cleanText(streamId),
    streamVersion: event.streamVersion,
    eventId: cleanText(String(event.eventId)),
    type: cleanText(String(event.type)),
    parentVersion: typeof event.parentVersion === 'number' ? event.parentVersion : null,
    data,
    tenantId: cleanText(tenantId),
    sessionId: sessionId === null ? null : cleanText(sessionId),
    actor: cleanText(typeof metadata.actor === 'string' ? metadata.actor : ''),
    occurredAt: normalizeTimestamp(metadata.occurredAt),
    commandId: optionalText(metadata.commandId),
    correlationId: optionalText(metadata.correlationId),
    causationId: optionalText(metadata.causationId),
  };
}

// ---- reading event data defensively ------------------------------------------------

export function textField(data: Record<string, unknown>, name: string, fallback = ''): string {
  const value = data[name];
  return typeof value === 'string' ? cleanText(value) : fallback;
}

export function optionalTextField(data: Record<string, unknown>, name: string): string | null {
  const value = data[name];
  return typeof value === 'string' ? cleanText(value) : null;
}

export function intField(data: Record<string, unknown>, name: string, fallback = 0): number {
  const value = data[name];
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback;
}

export function boolField(data: Record<string, unknown>, name: string): boolean {
  return data[name] === true;
}

export function objectField(data: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = data[name];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function arrayField(data: Record<string, unknown>, name: string): Record<string, unknown>[] {
  const value = data[name];
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object') : [];
}
