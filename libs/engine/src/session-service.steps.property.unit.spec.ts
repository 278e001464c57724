import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError, isStepCommand, type SessionCommand } from '@rewind/domain';
import { commandsFor, intentArb } from '@rewind/domain/testing';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
import { sessionStreamId } from './stream-id';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 1000);
const caller = { tenantId: 't', actor: 'tester' };
const stepIntent = intentArb.filter((i) => !['rollback', 'fork', 'toCheckpoint', 'undo', 'redo'].includes(i.kind));

/** Same ids in the same order on both sides: command ids are given, so only events, turns and messages draw ids. */
function newService(store: InMemoryEventStore) {
  let n = 0;
  return new SessionService(new SessionRepository(store, { snapshotEvery: 7 }), { newId: () => `id-${++n}`, now: () => new Date(0) });
}

describe('several steps in one write (property-based)', () => {
  it('a batch leaves the state the same steps leave one by one, or is refused at the step that is refused alone, writing nothing', async () => {
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepIntent, { minLength: 1, maxLength: 25 }), async (intents) => {
        const oneStore = new InMemoryEventStore();
        const one = newService(oneStore);
        await one.startSession(caller, { sessionId: 's' }, { commandId: 'start' });
        const sent: SessionCommand[] = [];
        let refusedAt: number | null = null;
        outer: for (const intent of intents) {
          for (const command of commandsFor(intent, await one.getState(caller, 's'))) {
            sent.push(command);
            try {
              await one.execute(caller, 's', command, { commandId: `c${sent.length}` });
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              refusedAt = sent.length - 1;
              break outer;
            }
          }
        }
        expect(sent.every(isStepCommand)).toBe(true);
        const batchStore = new InMemoryEventStore();
        const batch = newService(batchStore);
        await batch.startSession(caller, { sessionId: 's' }, { commandId: 'start' });
        if (refusedAt === null) {
          accepted++;
          const result = await batch.executeSteps(caller, 's', sent, { commandId: 'batch' });
          expect(result.version).toBe((await one.getState(caller, 's')).version);
          expect(await batch.getState(caller, 's')).toEqual(await one.getState(caller, 's'));
          // The cache agrees with what a cold restore reads back from the store.
          await batch.repository.flushSnapshots();
          const cold = new SessionRepository(batchStore, { snapshotEvery: 7 });
          expect(await cold.load(sessionStreamId('t', 's'))).toEqual(await batch.getState(caller, 's'));
          // In two writes, the second decided on a session the first left (calls, turns and memory to read through to).
          if (sent.length > 1) {
            const twice = newService(new InMemoryEventStore());
            await twice.startSession(caller, { sessionId: 's' }, { commandId: 'start' });
            const half = Math.ceil(sent.length / 2);
            await twice.executeSteps(caller, 's', sent.slice(0, half), { commandId: 'first' });
            await twice.executeSteps(caller, 's', sent.slice(half), { commandId: 'second' });
            expect(await twice.getState(caller, 's')).toEqual(await one.getState(caller, 's'));
          }
        } else {
          refused++;
          const error = await batch.executeSteps(caller, 's', sent, { commandId: 'batch' }).catch((e: unknown) => e);
          if (sent.length > 1) {
            expect(error).toBeInstanceOf(DomainError);
            expect((error as DomainError).message).toMatch(new RegExp(`^steps\\[${refusedAt}\\]: `));
          } else expect(error).toBeInstanceOf(DomainError);
          expect(await batchStore.streamVersion(sessionStreamId('t', 's'))).toBe(1);
          // After the steps that were accepted (written first, as a batch), the refused rest leaves the session as it was.
          if (refusedAt > 0) {
            const later = newService(new InMemoryEventStore());
            await later.startSession(caller, { sessionId: 's' }, { commandId: 'start' });
            await later.executeSteps(caller, 's', sent.slice(0, refusedAt), { commandId: 'accepted' });
            const before = structuredClone(await later.getState(caller, 's'));
            await expect(later.executeSteps(caller, 's', sent.slice(refusedAt), { commandId: 'refused' })).rejects.toBeInstanceOf(DomainError);
            expect(await later.getState(caller, 's')).toEqual(before);
          }
        }
      }),
      { numRuns: RUNS },
    );
    // The generator really exercises both outcomes.
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeGreaterThan(RUNS / 20);
  });
});
