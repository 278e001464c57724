import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError, type EffectDescriptor } from '@rewind/domain';
import { commandsFor, intentArb } from '@rewind/domain/testing';
import { ConcurrencyError, IdempotencyKeyReusedError } from '@rewind/event-store';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from '../session-repository';
import { SessionService } from '../session-service';
import { sessionStreamId } from '../stream-id';
import { ToolRegistry } from '../tool-registry';
import type { WriteResult } from './write-request';

const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 5));
const caller = { tenantId: 't', actor: 'tester' };
const stream = sessionStreamId('t', 's');

/** Same ids and clock on both sides of a comparison. */
function deterministicService() {
  let n = 0;
  return new SessionService(new SessionRepository(new InMemoryEventStore(), { snapshotEvery: 3 }), { newId: () => `id-${++n}`, now: () => new Date(0) });
}

async function outcome(write: Promise<WriteResult>): Promise<WriteResult | DomainError> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

describe('the command pipeline (property-based)', () => {
  it('a retried idempotent request answers what the first one did and writes nothing; its key on another request is refused, writing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(intentArb, { minLength: 1, maxLength: 15 }), fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), async (intents, retries) => {
        const store = new InMemoryEventStore();
        const service = new SessionService(new SessionRepository(store, { snapshotEvery: 4 }), { compensationEnabled: false });
        await service.startSession(caller, { sessionId: 's' }, { idempotencyKey: 'start' });
        const sent: { key: string; command: Parameters<SessionService['execute']>[2]; first: WriteResult | DomainError }[] = [];
        for (const intent of intents) {
          for (const command of commandsFor(intent, await service.getState(caller, 's'))) {
            const key = `k${sent.length}`;
            sent.push({ key, command, first: await outcome(service.execute(caller, 's', command, { idempotencyKey: key })) });
          }
        }
        let version = await store.streamVersion(stream);
        for (const pick of retries) {
          const entry = sent[pick % sent.length]!;
          const again = await outcome(service.execute(caller, 's', entry.command, { idempotencyKey: entry.key }));
          if (!(entry.first instanceof DomainError)) {
            expect(again).toEqual({ ...entry.first, duplicate: true });
          } else if (!(again instanceof DomainError)) {
            // A refused request claimed nothing: sent again, it is decided on today's state.
            entry.first = again;
            version = again.version;
          }
          expect(await store.streamVersion(stream)).toBe(version);
        }
        const settled = await store.streamVersion(stream);
        const claimed = sent.find((s) => !(s.first instanceof DomainError));
        if (claimed) {
          await expect(
            service.execute(caller, 's', { type: 'SetContextVariable', name: 'never-sent', value: 'x' }, { idempotencyKey: claimed.key }),
          ).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
          expect(await store.streamVersion(stream)).toBe(settled);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('If-Match: a stale version is refused and writes nothing; the current one writes what no If-Match would', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(intentArb, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 50 }), async (intents, offset) => {
        const pinned = deterministicService();
        const free = deterministicService();
        await pinned.startSession(caller, { sessionId: 's' }, { commandId: 'start' });
        await free.startSession(caller, { sessionId: 's' }, { commandId: 'start' });
        for (const intent of intents) {
          for (const command of commandsFor(intent, await pinned.getState(caller, 's'))) {
            const current = (await pinned.getState(caller, 's')).version;
            const stale = current + offset;
            await expect(pinned.execute(caller, 's', command, { expectedVersion: stale })).rejects.toBeInstanceOf(ConcurrencyError);
            expect((await pinned.getState(caller, 's')).version).toBe(current);
            const a = await outcome(pinned.execute(caller, 's', command, { expectedVersion: current }));
            const b = await outcome(free.execute(caller, 's', command));
            expect(a instanceof DomainError ? a.code : a.version).toEqual(b instanceof DomainError ? b.code : b.version);
          }
        }
        expect(await pinned.getState(caller, 's')).toEqual(await free.getState(caller, 's'));
      }),
      { numRuns: RUNS },
    );
  });

  it('replicas sharing one store (each with its own state cache) decide every command as one process would: a stale cache never refuses what the store allows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(intentArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 40 }),
        async (intents, route) => {
          const shared = new InMemoryEventStore();
          let n = 0;
          const ids = { newId: () => `id-${++n}`, now: () => new Date(0) };
          const replicas = [0, 1, 2].map(() => new SessionService(new SessionRepository(shared, { snapshotEvery: 3 }), { ...ids, compensationEnabled: false }));
          let m = 0;
          const alone = new SessionService(new SessionRepository(new InMemoryEventStore(), { snapshotEvery: 3 }), {
            newId: () => `id-${++m}`,
            now: () => new Date(0),
            compensationEnabled: false,
          });
          await replicas[0]!.startSession(caller, { sessionId: 's' });
          await alone.startSession(caller, { sessionId: 's' });
          let i = 0;
          for (const intent of intents) {
            // Each replica reads (and caches) the session before the commands: later writes elsewhere leave its cache stale.
            for (const replica of replicas) await replica.getState(caller, 's');
            // Each side's commands from its own state: ids the server made (turns) differ between the sides, since a
            // command decided again after a stale refusal draws new ids.
            const shared = commandsFor(intent, await replicas[0]!.getState(caller, 's'));
            const own = commandsFor(intent, await alone.getState(caller, 's'));
            expect(shared.length).toBe(own.length);
            for (const [c, command] of shared.entries()) {
              const replica = replicas[route[i++ % route.length]!]!;
              const a = await outcome(replica.execute(caller, 's', command));
              const b = await outcome(alone.execute(caller, 's', own[c]!));
              expect(a instanceof DomainError ? a.code : a.version).toEqual(b instanceof DomainError ? b.code : b.version);
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("If-Match on a session that does not exist (another tenant's) is refused as not found, never as a version conflict", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(intentArb, { minLength: 1, maxLength: 8 }), fc.nat({ max: 50 }), async (intents, expectedVersion) => {
        const service = deterministicService();
        const intruder = { tenantId: 'other', actor: 'intruder' };
        await service.startSession(caller, { sessionId: 's' });
        for (const intent of intents) {
          for (const command of commandsFor(intent, await service.getState(caller, 's'))) {
            const refused = await outcome(service.execute(intruder, 's', command, { expectedVersion }));
            expect(refused instanceof DomainError ? refused.code : refused).toBe('session_not_found');
            await outcome(service.execute(caller, 's', command));
          }
        }
        await expect(service.getState(intruder, 's')).rejects.toMatchObject({ code: 'session_not_found' });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('tool registration through the pipeline', () => {
  it('answers a retried registration (same Idempotency-Key) with the first definition, and refuses a stale If-Match, writing nothing', async () => {
    const store = new InMemoryEventStore();
    const tools = new ToolRegistry(store);
    const first = await tools.register(caller, 'search', { kind: 'none' }, { idempotencyKey: 'reg-1' });
    expect(first).toMatchObject({ name: 'search', version: 1, registeredBy: 'tester', effect: { kind: 'none' } });
    const retried = await tools.register(caller, 'search', { kind: 'none' }, { idempotencyKey: 'reg-1' });
    expect(retried).toEqual(first);
    await expect(tools.register(caller, 'search', { kind: 'irreversible' }, { idempotencyKey: 'reg-1' })).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(tools.register(caller, 'search', { kind: 'irreversible' }, { expectedVersion: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await store.streamVersion('tool:t:search')).toBe(1);
    const replaced = await tools.register(caller, 'search', { kind: 'irreversible' }, { expectedVersion: 1 });
    expect(replaced.version).toBe(2);
    expect(await new ToolRegistry(store).get('t', 'search')).toEqual(replaced);
  });

  it('refuses an effect declaration that does not hold together, writing nothing', async () => {
    const store = new InMemoryEventStore();
    const tools = new ToolRegistry(store);
    const broken: EffectDescriptor = { kind: 'reversible' };
    await expect(tools.register(caller, 'book', broken)).rejects.toMatchObject({ code: 'compensation_missing' });
    expect(await store.streamVersion('tool:t:book')).toBe(0);
  });
});
