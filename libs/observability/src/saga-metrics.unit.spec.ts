import { Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { registerSagaMetrics } from './saga-metrics';

const event = (type: string, data: unknown, occurredAt: string) => ({ type, data, metadata: { occurredAt } });

it('counts compensation outcomes and DLQ messages, and times rollbacks requested and completed here', async () => {
  const registry = new Registry();
  const saga = registerSagaMetrics(registry);
  saga.observeCommitted([
    event('RollbackRequested', { rollbackId: 'r1' }, '2026-01-01T00:00:00.000Z'),
    event('CompensationAttemptFailed', {}, '2026-01-01T00:00:00.100Z'),
  ]);
  saga.observeCommitted([
    event('CompensationApplied', { rollbackId: 'r1' }, '2026-01-01T00:00:01.000Z'),
    event('CompensationFailed', { rollbackId: 'r1' }, '2026-01-01T00:00:01.100Z'),
    event('RollbackCompleted', { rollbackId: 'r1' }, '2026-01-01T00:00:02.500Z'),
    event('RollbackCompleted', { rollbackId: 'requested-elsewhere' }, '2026-01-01T00:00:03.000Z'),
  ]);
  saga.deadLettered('unauthenticated');
  const text = await registry.metrics();
  expect(text).toContain('rewind_compensations_total{outcome="applied"} 1');
  expect(text).toContain('rewind_compensations_total{outcome="failed"} 1');
  expect(text).toContain('rewind_compensations_total{outcome="attempt_failed"} 1');
  expect(text).toContain('rewind_rollback_duration_seconds_count 1');
  expect(text).toContain('rewind_rollback_duration_seconds_sum 2.5');
  expect(text).toContain('rewind_dlq_messages_total{status="unauthenticated"} 1');
});
