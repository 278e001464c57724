import type { PendingEvent } from '../decide';
import type { RecordedSessionEvent } from '../events';

/** A decided event as the store would record it at `version` (fixed test metadata). */
export function recordedAt(pending: PendingEvent, version: number): RecordedSessionEvent {
  return {
    ...pending,
    eventId: `e-${version}`,
    streamVersion: version,
    globalPosition: version,
    metadata: {
      tenantId: 't',
      sessionId: 's',
      commandId: 'c',
      causationId: null,
      correlationId: 'c',
      actor: 'tester',
      occurredAt: '2026-01-01T00:00:00.000Z',
      schemaVersion: 1,
    },
  } as RecordedSessionEvent;
}
