import { LRUCache } from 'lru-cache';
import { Counter, Histogram, type Registry } from 'prom-client';

/** What the saga metrics read of a committed event. */
interface CommittedEvent {
  type: string;
  data: unknown;
  metadata: { occurredAt: string };
}

const COMPENSATION_OUTCOMES: Record<string, string> = {
  CompensationApplied: 'applied',
  CompensationFailed: 'failed',
  CompensationAttemptFailed: 'attempt_failed',
  CompensationSkipped: 'skipped',
  CompensationResolved: 'resolved',
};

export interface SagaMetrics {
  /** Feed every committed event (the session runtime's `onCommitted`). */
  observeCommitted(events: readonly CommittedEvent[]): void;
  /** A command copied to the DLQ, by its result status (rejected, unauthenticated, ...). */
  deadLettered(status: string): void;
}

/**
 * Compensation outcomes and rollback (saga) durations, read from the events this process
 * commits, and DLQ messages. A rollback's duration is observed when this process committed
 * both its request and its completion (the saga runs where the rollback was requested).
 */
export function registerSagaMetrics(registry: Registry): SagaMetrics {
  const compensations = new Counter({
    name: 'rewind_compensations_total',
    help: 'Compensations by outcome (applied, failed: needs an operator, attempt_failed: will retry, skipped, resolved)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const rollbackDuration = new Histogram({
    name: 'rewind_rollback_duration_seconds',
    help: 'Time from a rollback request to its completion (the saga, compensations included)',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const dlq = new Counter({
    name: 'rewind_dlq_messages_total',
    help: 'Kafka commands copied to the dead-letter topic, by result status',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  // Rollbacks that complete in another process leave their request here: the oldest go first.
  const requested = new LRUCache<string, number>({ max: 10_000 });
  return {
    observeCommitted(events) {
      for (const event of events) {
        const outcome = COMPENSATION_OUTCOMES[event.type];
        if (outcome) compensations.inc({ outcome });
        const rollbackId = (event.data as { rollbackId?: unknown } | null)?.rollbackId;
        if (typeof rollbackId !== 'string') continue;
        if (event.type === 'RollbackRequested') {
          requested.set(rollbackId, Date.parse(event.metadata.occurredAt));
        } else if (event.type === 'RollbackCompleted' && requested.has(rollbackId)) {
          rollbackDuration.observe(Math.max(0, Date.parse(event.metadata.occurredAt) - requested.get(rollbackId)!) / 1000);
          requested.delete(rollbackId);
        }
      }
    },
    deadLettered(status) {
      dlq.inc({ status });
    },
  };
}
