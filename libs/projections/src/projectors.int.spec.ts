import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, type EffectDescriptor } from '@rewind/domain';
import { commandsFor, intentArb } from '@rewind/domain/testing';
import { SessionRepository, SessionService, sessionStreamId, type Caller } from '@rewind/engine';
import { ProjectionSupervisor, SILENT_LOGGER } from './runner';
import { rebuildProjections } from './rebuild';
import { AUDIT_LOG, HEAD_MESSAGES, ROLLBACKS, SESSIONS, TIMELINE_NODES, TOOL_CALL_LEDGER } from './schema';
import { backendsUnderTest, type Fixture } from './testing/backends';
import { tableRows } from './testing/inspect';
import { expectedSession } from './testing/oracle';

/** The saga's records are accepted from its scope only: this spec writes them as the saga would. */
const asSaga = (caller: Caller): Caller => ({ ...caller, scope: 'saga' });

const REVERSIBLE: EffectDescriptor = { kind: 'reversible', compensation: { channel: 'inline', target: 'cancel' } };

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`projectors on ${on}`, () => {
    let f: Fixture;
    let runners: ProjectionSupervisor;
    let service: SessionService;

    beforeEach(async () => {
      f = await backend.open();
      runners = new ProjectionSupervisor(f.store, f.db, { logger: SILENT_LOGGER });
      service = new SessionService(new SessionRepository(f.store, { snapshotEvery: 0 }), { compensationEnabled: true });
    });
    afterEach(async () => {
      await runners.stop();
      await f.close();
    });
    afterAll(() => backend.dispose());

    /** The read models of one session, next to what the domain says they must be. */
    async function compareWithDomain(tenantId: string, sessionId: string): Promise<void> {
      const expected = expectedSession(await f.store.readStream(sessionStreamId(tenantId, sessionId)));
      const key = { tenant_id: tenantId, session_id: sessionId };
      const [session] = await tableRows(f.db, SESSIONS, key);
      expect(session).toMatchObject(expected.session);
      expect(await tableRows(f.db, TIMELINE_NODES, key)).toMatchObject(expected.nodes);
      expect(await tableRows(f.db, HEAD_MESSAGES, key)).toMatchObject(expected.headMessages);
      expect(await tableRows(f.db, TOOL_CALL_LEDGER, key)).toMatchObject(expected.ledger);
      const rollbacks = (await tableRows(f.db, ROLLBACKS, { tenant_id: tenantId })).filter((r) => r.session_id === sessionId);
      expect(rollbacks).toMatchObject(expected.rollbacks);
    }

    it('sessions: title, head, counts, timeline nodes and head messages follow steps, an undo and a new branch', async () => {
      const caller: Caller = { tenantId: 'acme', actor: 'key:agent' };
      await service.startSession(caller, { sessionId: 'trip', title: 'Plan a trip' }); // v1
      await service.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'Plan a trip to Lisbon' }); // v2
      await service.execute(caller, 'trip', { type: 'RecordMessage', role: 'agent', content: 'Lisbon it is.' }); // v3
      await service.execute(caller, 'trip', { type: 'WriteMemory', key: 'destination', value: 'Lisbon' }); // v4
      await service.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'Book the Alfama Inn' }); // v5
      await service.execute(caller, 'trip', { type: 'MoveHead', kind: 'rollback', toVersion: 3 }); // v6, v7: head 3
      await service.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'Actually, Porto' }); // v8: parent 3, a second branch
      await runners.catchUp(await f.head());

      const [session] = await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: 'trip' });
      expect(session).toMatchObject({ title: 'Plan a trip', status: 'active', head: 8, version: 8, message_count: 4, branch_count: 2, head_is_leaf: true });
      const nodes = await tableRows(f.db, TIMELINE_NODES, { tenant_id: 'acme', session_id: 'trip' });
      expect(nodes.map((n) => [n.version, n.parent_version, n.on_head_path])).toEqual([
        [1, null, true],
        [2, 1, true],
        [3, 2, true],
        [4, 3, false],
        [5, 4, false],
        [8, 3, true],
      ]);
      const messages = await tableRows(f.db, HEAD_MESSAGES, { tenant_id: 'acme', session_id: 'trip' });
      expect(messages.map((m) => [m.version, m.role, m.content])).toEqual([
        [2, 'user', 'Plan a trip to Lisbon'],
        [3, 'agent', 'Lisbon it is.'],
        [8, 'user', 'Actually, Porto'],
      ]);
      await compareWithDomain('acme', 'trip');

      // Redo is impossible after a new step; jump back to the old branch's tip instead.
      await service.execute(caller, 'trip', { type: 'MoveHead', kind: 'rollback', toVersion: 5 });
      await runners.catchUp(await f.head());
      const after = await tableRows(f.db, HEAD_MESSAGES, { tenant_id: 'acme', session_id: 'trip' });
      expect(after.map((m) => m.content)).toEqual(['Plan a trip to Lisbon', 'Lisbon it is.', 'Book the Alfama Inn']);
      await compareWithDomain('acme', 'trip');
    });

    it('sessions: an interrupted turn keeps its visible part as a partial agent message', async () => {
      const caller: Caller = { tenantId: 't1', actor: 'key:agent' };
      await service.startSession(caller, { sessionId: 's' });
      const user = await service.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: 'Tell me about Kyoto' });
      const turnId = (await service.getState(caller, 's')).path.turns[0]!.turnId;
      await service.execute(caller, 's', { type: 'InterruptTurn', turnId, partialContent: 'Kyoto\twas\r\nthe \\capital\\N' });
      await runners.catchUp(await f.head());
      const messages = await tableRows(f.db, HEAD_MESSAGES, { tenant_id: 't1', session_id: 's' });
      expect(messages.map((m) => [m.version, m.role, m.content, m.partial, m.message_id])).toEqual([
        [user.version, 'user', 'Tell me about Kyoto', false, expect.any(String)],
        [user.version + 1, 'agent', 'Kyoto\twas\r\nthe \\capital\\N', true, `${turnId}:partial`],
      ]);
      await compareWithDomain('t1', 's');
    });

    it('ledger and rollbacks: compensations applied, retried after a failure, resolved by hand, skipped', async () => {
      const caller: Caller = { tenantId: 'acme', actor: 'key:ops' };
      await service.startSession(caller, { sessionId: 'book' }); // v1
      await service.execute(caller, 'book', { type: 'RecordMessage', role: 'user', content: 'Book it all' }); // v2
      await service.execute(caller, 'book', { type: 'StartToolCall', toolCallId: 'hotel', tool: 'book_hotel', input: { city: 'Lisbon' }, effect: REVERSIBLE }); // v3
      await service.execute(caller, 'book', { type: 'CompleteToolCall', toolCallId: 'hotel', output: { bookingId: 'H1' } }); // v4
      await service.execute(caller, 'book', { type: 'StartToolCall', toolCallId: 'car', tool: 'rent_car', input: {}, effect: REVERSIBLE }); // v5
      await service.execute(caller, 'book', { type: 'CompleteToolCall', toolCallId: 'car', output: { bookingId: 'C1' } }); // v6
      await service.execute(caller, 'book', {
        type: 'StartToolCall',
        toolCallId: 'pay',
        tool: 'pay',
        input: {},
        effect: { kind: 'irreversible' },
        confirmed: true,
      }); // v7
      await service.execute(caller, 'book', { type: 'CompleteToolCall', toolCallId: 'pay', output: { paid: true } }); // v8
      await service.execute(caller, 'book', { type: 'StartToolCall', toolCallId: 'look', tool: 'search', input: {}, effect: { kind: 'none' } }); // v9
      await service.execute(caller, 'book', { type: 'FailToolCall', toolCallId: 'look', error: 'timeout', retryable: true }); // v10
      const move = await service.execute(caller, 'book', { type: 'MoveHead', kind: 'rollback', toVersion: 2, acknowledgeIrreversible: true }); // v11 requested, v12 pay skipped
      const rollbackId = (await service.getState(caller, 'book')).activeRollbackId!;
      expect(move.status).toBe('rolling_back');

      await runners.catchUp(await f.head());
      let [rollback] = await tableRows(f.db, ROLLBACKS, { tenant_id: 'acme', rollback_id: rollbackId });
      expect(rollback).toMatchObject({ status: 'in_progress', planned_effects: 3, to_compensate: 2, skipped_count: 1, compensated_count: 0 });
      expect((await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: 'book' }))[0]).toMatchObject({ status: 'rolling_back' });

      // Newest first. The car: one attempt fails and is retried, then it fails for good.
      await service.execute(asSaga(caller), 'book', {
        type: 'RecordCompensationOutcome',
        rollbackId,
        startedVersion: 5,
        outcome: { status: 'attempt_failed', attempt: 1, error: '503', retryInMs: 10 },
      });
      await service.execute(asSaga(caller), 'book', {
        type: 'RecordCompensationOutcome',
        rollbackId,
        startedVersion: 5,
        outcome: { status: 'failed', attempts: 2, error: '410 gone' },
      });
      await runners.catchUp(await f.head());
      [rollback] = await tableRows(f.db, ROLLBACKS, { tenant_id: 'acme', rollback_id: rollbackId });
      expect(rollback).toMatchObject({ status: 'needs_attention', failed_count: 1 });
      expect((await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: 'book' }))[0]).toMatchObject({ status: 'needs_attention', failed_effects: 1 });
      expect((await tableRows(f.db, TOOL_CALL_LEDGER, { tenant_id: 'acme', session_id: 'book', started_version: 5 }))[0]).toMatchObject({
        compensation_status: 'failed',
        compensation_attempts: 2,
        compensation_detail: '410 gone',
      });
      await compareWithDomain('acme', 'book');

      // An operator retries it, and it works; then the hotel fails, and an operator undoes it by hand.
      await service.execute(caller, 'book', { type: 'RetryCompensation', rollbackId, toolCallId: 'car' });
      await runners.catchUp(await f.head());
      expect((await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: 'book' }))[0]).toMatchObject({ status: 'rolling_back', failed_effects: 0 });
      expect((await tableRows(f.db, ROLLBACKS, { tenant_id: 'acme', rollback_id: rollbackId }))[0]).toMatchObject({ status: 'in_progress', failed_count: 0 });
      await service.execute(asSaga(caller), 'book', {
        type: 'RecordCompensationOutcome',
        rollbackId,
        startedVersion: 5,
        outcome: { status: 'applied', attempts: 3, response: { ok: true } },
      });
      await service.execute(asSaga(caller), 'book', {
        type: 'RecordCompensationOutcome',
        rollbackId,
        startedVersion: 3,
        outcome: { status: 'failed', attempts: 5, error: 'no such booking' },
      });
      await runners.catchUp(await f.head());
      await compareWithDomain('acme', 'book');
      await service.execute(caller, 'book', { type: 'ResolveCompensation', rollbackId, toolCallId: 'hotel', note: 'cancelled by phone' });
      await service.execute(asSaga(caller), 'book', { type: 'CompleteRollback', rollbackId });
      await runners.catchUp(await f.head());

      [rollback] = await tableRows(f.db, ROLLBACKS, { tenant_id: 'acme', rollback_id: rollbackId });
      expect(rollback).toMatchObject({
        status: 'completed',
        compensated_count: 1,
        skipped_count: 1,
        failed_count: 0,
        resolved_count: 1,
        requested_by: 'key:ops',
      });
      const ledger = await tableRows(f.db, TOOL_CALL_LEDGER, { tenant_id: 'acme', session_id: 'book' });
      expect(ledger.map((r) => [r.tool_call_id, r.status, r.effect_kind, r.compensation_status, r.compensation_attempts])).toEqual([
        ['hotel', 'succeeded', 'reversible', 'resolved', 5],
        ['car', 'succeeded', 'reversible', 'compensated', 3],
        ['pay', 'succeeded', 'irreversible', 'skipped', 0],
        ['look', 'failed', 'none', null, 0],
      ]);
      expect(ledger.find((r) => r.tool_call_id === 'hotel')!.compensation_detail).toBe('cancelled by phone');
      expect(ledger.find((r) => r.tool_call_id === 'look')!.error).toBe('timeout');
      expect((await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: 'book' }))[0]).toMatchObject({ status: 'active', head: 2, failed_effects: 0 });
      await compareWithDomain('acme', 'book');
    });

    it('audit: every event of every stream with who, what, when; unknown types are audited and ignored elsewhere', async () => {
      const caller: Caller = { tenantId: 'acme', actor: 'key:alice' };
      await service.startSession(caller, { sessionId: 'a' }, { commandId: 'cmd-1', correlationId: 'corr-1' });
      await service.execute(caller, 'a', { type: 'WriteMemory', key: 'k', value: 1 }, { commandId: 'cmd-2', correlationId: 'corr-1' });
      const meta = (sessionId: string) => ({
        tenantId: 'acme',
        sessionId,
        commandId: 'cmd-x',
        causationId: 'cmd-2',
        correlationId: 'corr-x',
        actor: 'system',
        occurredAt: '2026-05-01T10:00:00+02:00',
        schemaVersion: 2,
      });
      // A future event type, and an event of another kind of stream (the tool registry).
      await f.store.append(
        sessionStreamId('acme', 'a'),
        [{ eventId: randomUUID(), type: 'SomethingNew', data: { x: '\u0000nul' }, parentVersion: null, metadata: meta('a') }],
        {
          expectedVersion: 2,
        },
      );
      await f.store.append(
        'tool:acme:book_hotel',
        [{ eventId: randomUUID(), type: 'ToolRegistered', data: { name: 'book_hotel' }, parentVersion: null, metadata: meta('') }],
        {
          expectedVersion: 'no_stream',
        },
      );
      await runners.catchUp(await f.head());

      const audit = await tableRows(f.db, AUDIT_LOG, { tenant_id: 'acme' });
      expect(audit.map((a) => [a.type, a.session_id, a.stream_version, a.actor, a.command_id, a.correlation_id])).toEqual([
        ['SessionStarted', 'a', 1, 'key:alice', 'cmd-1', 'corr-1'],
        ['MemoryWritten', 'a', 2, 'key:alice', 'cmd-2', 'corr-1'],
        ['SomethingNew', 'a', 3, 'system', 'cmd-x', 'corr-x'],
        ['ToolRegistered', null, 1, 'system', 'cmd-x', 'corr-x'],
      ]);
      expect(audit[2]).toMatchObject({ causation_id: 'cmd-2', occurred_at: '2026-05-01T08:00:00.000Z', stream_id: 'session:acme:a' });
      const positions = (await f.store.readAll({ after: 0, limit: 100 })).map((e) => e.globalPosition);
      expect(audit.map((a) => a.global_position)).toEqual(positions);
      // The unknown event moved the session's version but nothing else.
      expect((await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: 'a' }))[0]).toMatchObject({ version: 3, head: 2, branch_count: 1 });
      expect(await tableRows(f.db, TIMELINE_NODES, { tenant_id: 'acme', session_id: 'a' })).toHaveLength(2);
    });

    it('any sequence of commands, cut into any batch sizes, gives what the domain defines (property-based)', async () => {
      let run = 0;
      const sessions: [string, string][] = [];
      await fc.assert(
        fc.asyncProperty(fc.array(intentArb, { minLength: 3, maxLength: 25 }), fc.integer({ min: 1, max: 12 }), async (intents, batchSize) => {
          const caller: Caller = { tenantId: `p${++run}`, actor: 'key:prop' };
          await service.startSession(caller, { sessionId: 's', title: `run ${run}` });
          for (const intent of intents) {
            for (const command of commandsFor(intent, await service.getState(caller, 's'))) {
              try {
                await service.execute(caller, 's', command);
              } catch (error) {
                if (!(error instanceof DomainError)) throw error;
                break;
              }
            }
          }
          const state = await service.getState(caller, 's');
          if (state.activeRollbackId) {
            // Finish what the saga would: every pending compensation applied, then completion.
            for (const item of state.rollbacks[state.activeRollbackId]!.plan.filter((i) => i.action === 'compensate')) {
              await service.execute(asSaga(caller), 's', {
                type: 'RecordCompensationOutcome',
                rollbackId: state.activeRollbackId,
                startedVersion: item.startedVersion,
                outcome: { status: 'applied', attempts: 1, response: null },
              });
            }
            await service.execute(asSaga(caller), 's', { type: 'CompleteRollback', rollbackId: state.activeRollbackId });
          }
          const one = new ProjectionSupervisor(f.store, f.db, { batchSize, logger: SILENT_LOGGER });
          await one.catchUp(await f.head());
          await one.stop();
          await compareWithDomain(caller.tenantId, 's');
          sessions.push([caller.tenantId, 's']);
        }),
        { numRuns: backend.name === 'sqlite' ? 40 : 15 },
      );
      // Whatever the batch sizes were, a rebuild from the log in one go gives the same tables.
      await f.settle();
      const result = await rebuildProjections(f.store, f.db, { verify: true, batchSize: 1000 });
      expect(result.verification?.identical).toBe(true);
      expect(sessions.length).toBeGreaterThan(10);
    });
  });
}
