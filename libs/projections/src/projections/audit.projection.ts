import type { ProjectedEvent } from '../projected-event';
import { AUDIT_LOG, type Row } from '../schema';
import type { Dialect, Step, TableVariant } from '../sql';
import type { Projection } from './projection';

/** `audit_log`: every event of the log, of any type and any stream — who did what, when, under which command. */
export const auditProjection: Projection = {
  name: 'audit',
  description: 'the audit log (every event: who, what, when, which command)',
  tables: [AUDIT_LOG],

  *apply(d: Dialect, events: readonly ProjectedEvent[], variant: TableVariant): Step<void> {
    const rows: Row[] = events.map((e) => ({
      global_position: e.position,
      tenant_id: e.tenantId,
      session_id: e.sessionId,
      stream_id: e.streamId,
      stream_version: e.streamVersion,
      event_id: e.eventId,
      type: e.type,
      actor: e.actor,
      occurred_at: e.occurredAt,
      command_id: e.commandId,
      correlation_id: e.correlationId,
      causation_id: e.causationId,
    }));
    yield* d.insert(AUDIT_LOG, rows, { variant });
  },
};
