import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionRepository, SessionService, type Caller } from '@rewind/engine';
import { InvalidCursorError, ReadModelQueries, type Page } from './queries';
import { ProjectionSupervisor, SILENT_LOGGER } from './runner';
import { backendsUnderTest, type Fixture } from './testing/backends';

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`read-model queries on ${on}`, () => {
    let f: Fixture;
    let queries: ReadModelQueries;
    let times: string[];

    beforeEach(async () => {
      f = await backend.open();
      queries = new ReadModelQueries(f.db);
      let clock = Date.parse('2026-03-01T09:00:00.000Z');
      const service = new SessionService(new SessionRepository(f.store, { snapshotEvery: 0 }), { now: () => new Date((clock += 60_000)) });
      const alice: Caller = { tenantId: 'default', actor: 'key:alice' };
      const bob: Caller = { tenantId: 'default', actor: 'key:bob' };
      // s1..s6 of tenant default (s2 by bob), one session of tenant other.
      const titles = ['Lisbon trip', 'lisbon OFFSITE', '50% off in Rome', 'under_score', null, 'Porto'];
      for (let i = 0; i < titles.length; i++) {
        await service.startSession(i === 1 ? bob : alice, { sessionId: `s${i + 1}`, ...(titles[i] ? { title: titles[i]! } : {}) });
      }
      await service.execute(alice, 's1', { type: 'StartToolCall', toolCallId: 'c1', tool: 'search', input: {}, effect: { kind: 'none' } });
      await service.execute(alice, 's1', { type: 'CompleteToolCall', toolCallId: 'c1', output: {} });
      await service.execute(alice, 's3', {
        type: 'StartToolCall',
        toolCallId: 'c2',
        tool: 'pay',
        input: {},
        effect: { kind: 'irreversible' },
        confirmed: true,
      });
      await service.execute(alice, 's3', { type: 'FailToolCall', toolCallId: 'c2', error: 'declined' });
      await service.startSession({ tenantId: 'other', actor: 'key:eve' }, { sessionId: 's1', title: 'Lisbon trip' });
      const runners = new ProjectionSupervisor(f.store, f.db, { logger: SILENT_LOGGER });
      await runners.catchUp(await f.head());
      await runners.stop();
      times = (await queries.listSessions({ tenantId: 'default', sort: 'updatedAt', limit: 100 })).items.map((s) => s.updatedAt);
    });
    afterEach(() => f.close());
    afterAll(() => backend.dispose());

    async function all<T>(fetch: (cursor?: string) => Promise<Page<T>>): Promise<T[]> {
      const out: T[] = [];
      let cursor: string | undefined;
      do {
        const page = await fetch(cursor);
        out.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return out;
    }

    it('lists sessions of one tenant only, in each sort order, page by page', async () => {
      const ids = async (sort: 'sessionId' | 'createdAt' | 'updatedAt', limit: number) =>
        (await all((cursor) => queries.listSessions({ tenantId: 'default', sort, limit, ...(cursor ? { cursor } : {}) }))).map((s) => s.sessionId);
      expect(await ids('sessionId', 2)).toEqual(['s1', 's2', 's3', 's4', 's5', 's6']);
      expect(await ids('createdAt', 4)).toEqual(['s6', 's5', 's4', 's3', 's2', 's1']);
      expect(await ids('updatedAt', 1)).toEqual(['s3', 's1', 's6', 's5', 's4', 's2']);
      expect((await queries.listSessions({ tenantId: 'other', limit: 10 })).items.map((s) => s.title)).toEqual(['Lisbon trip']);
      expect((await queries.listSessions({ tenantId: 'nobody', limit: 10 })).items).toEqual([]);
    });

    it("counts the current branch's messages and tool calls beside every branch's", async () => {
      const service = new SessionService(new SessionRepository(f.store, { snapshotEvery: 0 }));
      const alice: Caller = { tenantId: 'default', actor: 'key:alice' };
      await service.startSession(alice, { sessionId: 'forked', title: 'Forked' });
      const asked = await service.execute(alice, 'forked', { type: 'RecordMessage', role: 'user', content: 'Lisbon' });
      await service.execute(alice, 'forked', { type: 'StartToolCall', toolCallId: 'c1', tool: 'search', input: {}, effect: { kind: 'none' } });
      await service.execute(alice, 'forked', { type: 'CompleteToolCall', toolCallId: 'c1', output: {} });
      await service.execute(alice, 'forked', { type: 'RecordMessage', role: 'agent', content: 'Found one' });
      await service.execute(alice, 'forked', { type: 'MoveHead', kind: 'rollback', toVersion: asked.head, acknowledgeIrreversible: true });
      await service.execute(alice, 'forked', { type: 'RecordMessage', role: 'agent', content: 'Which dates?' });
      const runners = new ProjectionSupervisor(f.store, f.db, { logger: SILENT_LOGGER });
      await runners.catchUp(await f.head());
      await runners.stop();
      const [forked] = (await queries.listSessions({ tenantId: 'default', q: 'Forked', limit: 10 })).items;
      expect(forked).toMatchObject({ messageCount: 3, toolCallCount: 1, currentBranchMessageCount: 2, currentBranchToolCallCount: 0, branchCount: 2 });
      const [s1] = (await queries.listSessions({ tenantId: 'default', q: 'Lisbon trip', limit: 10 })).items;
      expect(s1).toMatchObject({ sessionId: 's1', toolCallCount: 1, currentBranchToolCallCount: 1 });
    });

    it('filters by title (case-insensitive, % and _ taken literally), status and activity window', async () => {
      const titles = async (q: string) => (await queries.listSessions({ tenantId: 'default', q, limit: 10 })).items.map((s) => s.title);
      expect(await titles('LISBON')).toEqual(['Lisbon trip', 'lisbon OFFSITE']);
      expect(await titles('%')).toEqual(['50% off in Rome']);
      expect(await titles('_')).toEqual(['under_score']);
      expect(await titles('r_m')).toEqual([]);
      expect((await queries.listSessions({ tenantId: 'default', status: 'active', limit: 10 })).items).toHaveLength(6);
      expect((await queries.listSessions({ tenantId: 'default', status: 'rolling_back', limit: 10 })).items).toEqual([]);
      // times is newest first: strictly after the 3rd newest leaves the 2 newest.
      const after = await queries.listSessions({ tenantId: 'default', updatedAfter: times[2]!, limit: 10 });
      expect(after.items.map((s) => s.sessionId).sort()).toEqual(['s1', 's3']);
      const window = await queries.listSessions({ tenantId: 'default', updatedAfter: times[4]!, updatedBefore: times[1]!, limit: 10 });
      expect(window.items.map((s) => s.sessionId).sort()).toEqual(['s5', 's6']);
      // Any ISO-8601 spelling of an instant works.
      const offset = new Date(Date.parse(times[2]!)).toISOString().replace('Z', '+00:00');
      expect((await queries.listSessions({ tenantId: 'default', updatedAfter: offset, limit: 10 })).items).toHaveLength(2);
    });

    it('answers the audit log by session, type and actor, paged in log order, tenant-scoped', async () => {
      const everything = await all((cursor) => queries.auditLog({ tenantId: 'default', limit: 3, ...(cursor ? { cursor } : {}) }));
      expect(everything).toHaveLength(10);
      const onePage = (await queries.auditLog({ tenantId: 'default', limit: 100 })).items;
      expect(everything.map((e) => e.eventId)).toEqual(onePage.map((e) => e.eventId));
      // No place in the whole log: neither in an entry nor in a cursor (which names the page's last event).
      expect(JSON.stringify(everything)).not.toMatch(/position/i);
      const paged = await queries.auditLog({ tenantId: 'default', limit: 3 });
      expect(JSON.parse(Buffer.from(paged.nextCursor!, 'base64url').toString('utf8'))).toEqual(['audit', everything[2]!.eventId]);
      // Another tenant's event continues nothing here.
      const theirs = (await queries.auditLog({ tenantId: 'other', limit: 1 })).items[0]!;
      const foreign = Buffer.from(JSON.stringify(['audit', theirs.eventId])).toString('base64url');
      await expect(queries.auditLog({ tenantId: 'default', limit: 3, cursor: foreign })).rejects.toThrow(InvalidCursorError);
      expect((await queries.auditLog({ tenantId: 'default', sessionId: 's3', limit: 10 })).items.map((e) => e.type)).toEqual([
        'SessionStarted',
        'ToolCallStarted',
        'ToolCallFailed',
      ]);
      expect((await queries.auditLog({ tenantId: 'default', actor: 'key:bob', limit: 10 })).items.map((e) => e.sessionId)).toEqual(['s2']);
      expect((await queries.auditLog({ tenantId: 'default', type: 'ToolCallFailed', limit: 10 })).items).toHaveLength(1);
      expect((await queries.auditLog({ tenantId: 'other', limit: 10 })).items.map((e) => e.actor)).toEqual(['key:eve']);
      const first = everything[0]!;
      const from = await queries.auditLog({
        tenantId: 'default',
        from: first.occurredAt,
        to: new Date(Date.parse(first.occurredAt) + 60_000).toISOString(),
        limit: 10,
      });
      expect(from.items.map((e) => e.eventId)).toEqual([first.eventId]);
    });

    it('answers the audit log newest first, paged back to the start, and by several types at once', async () => {
      const inOrder = await all((cursor) => queries.auditLog({ tenantId: 'default', limit: 100, ...(cursor ? { cursor } : {}) }));
      const newestFirst = await all((cursor) => queries.auditLog({ tenantId: 'default', order: 'desc', limit: 3, ...(cursor ? { cursor } : {}) }));
      expect(newestFirst.map((e) => e.eventId)).toEqual(inOrder.map((e) => e.eventId).reverse());
      // The first page is today's: the newest event, without paging through the rest.
      expect((await queries.auditLog({ tenantId: 'default', order: 'desc', limit: 1 })).items[0]!.eventId).toBe(inOrder[inOrder.length - 1]!.eventId);
      const calls = await queries.auditLog({ tenantId: 'default', type: ['ToolCallStarted', 'ToolCallFailed'], limit: 10 });
      expect(calls.items.map((e) => e.type).sort()).toEqual(
        inOrder
          .filter((e) => ['ToolCallStarted', 'ToolCallFailed'].includes(e.type))
          .map((e) => e.type)
          .sort(),
      );
      // A cursor of one order does not continue the other.
      const page = await queries.auditLog({ tenantId: 'default', order: 'desc', limit: 1 });
      await expect(queries.auditLog({ tenantId: 'default', limit: 1, cursor: page.nextCursor! })).rejects.toThrow(InvalidCursorError);
    });

    it('answers the tool-call ledger by status and effect, and rejects foreign cursors', async () => {
      const calls = await queries.toolCalls({ tenantId: 'default', limit: 10 });
      expect(calls.items.map((c) => [c.sessionId, c.toolCallId, c.status, c.effect, c.error])).toEqual([
        ['s1', 'c1', 'succeeded', 'none', null],
        ['s3', 'c2', 'failed', 'irreversible', 'declined'],
      ]);
      expect((await queries.toolCalls({ tenantId: 'default', status: 'failed', limit: 10 })).items.map((c) => c.toolCallId)).toEqual(['c2']);
      expect((await queries.toolCalls({ tenantId: 'default', effect: 'none', limit: 10 })).items.map((c) => c.toolCallId)).toEqual(['c1']);
      expect((await queries.toolCalls({ tenantId: 'other', limit: 10 })).items).toEqual([]);
      const page = await queries.toolCalls({ tenantId: 'default', limit: 1 });
      expect((await queries.toolCalls({ tenantId: 'default', limit: 1, cursor: page.nextCursor! })).items.map((c) => c.toolCallId)).toEqual(['c2']);
      await expect(queries.auditLog({ tenantId: 'default', limit: 1, cursor: page.nextCursor! })).rejects.toThrow(InvalidCursorError);
      await expect(queries.listSessions({ tenantId: 'default', limit: 1, cursor: 'garbage' })).rejects.toThrow(InvalidCursorError);
    });
  });
}
