import { describe, expect, it } from 'vitest';
import { evolveInPlace, initialSessionState, replay, type RecordedSessionEvent, type SessionCommand } from '@rewind/domain';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
import { encodeSnapshot, nameSegments, SegmentCache, SnapshotEncoder } from './snapshot-segments';
import { sessionStreamId } from './stream-id';

const caller = { tenantId: 't', actor: 'tester' };
const sizes = { turns: 2, toolCalls: 2, timeline: 4 };

describe('SnapshotEncoder remembers sealed chunks', () => {
  it('encodes again only the chunks holding what the events folded since changed in place, and reuses the others as they were', async () => {
    const store = new InMemoryEventStore();
    const service = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    await service.startSession(caller, { sessionId: 's' });
    // A state folded here, in place, as the repository folds its cached state; the encoder is told of each fold.
    const state = initialSessionState();
    const encoder = new SnapshotEncoder(sizes);
    let folded = 0;
    const execute = async (command: SessionCommand) => {
      await service.execute(caller, 's', command);
      const events = (await store.readStream(sessionStreamId('t', 's'), { fromVersion: folded + 1 })) as unknown as RecordedSessionEvent[];
      for (const event of events) evolveInPlace(state, event, () => initialSessionState().path);
      encoder.folded(state, events);
      folded += events.length;
    };
    await execute({ type: 'RecordMessage', role: 'user', content: 'hello' }); // (events 1-2: start, then this)
    for (let t = 0; t < 6; t++) {
      await execute({ type: 'RecordMessage', role: 'user', content: `q${t}`, turnId: `turn-${t}` });
      await execute({ type: 'StartToolCall', toolCallId: `call-${t}`, tool: 'search', input: { t } });
    }
    const first = encoder.encode(state);
    expect(first).toEqual(encodeSnapshot(state, sizes));
    const chunk = (encoded: typeof first, kind: string, holding: string) => encoded.chunks.find((c) => c.kind === kind && c.json.includes(holding))!;

    // Change items of sealed chunks in place, the way evolve does.
    await execute({ type: 'CompleteToolCall', toolCallId: 'call-0', output: { found: 1 } });
    await execute({ type: 'FailToolCall', toolCallId: 'call-3', error: 'timeout', retryable: true });
    await execute({ type: 'RecordMessage', role: 'agent', content: 'late answer', turnId: 'turn-0' });
    const second = encoder.encode(state);
    expect(second).toEqual(encodeSnapshot(state, sizes));
    expect(chunk(second, 'turns', '"turn-0"').json).toContain('late answer');
    expect(chunk(second, 'toolCalls', '"call-0"').json).toContain('found');
    expect(chunk(second, 'toolCalls', '"call-3"').json).toContain('timeout');
    // What was not touched is the very chunk encoded the first time (not stringified or hashed again).
    expect(chunk(second, 'turns', '"turn-4"')).toBe(chunk(first, 'turns', '"turn-4"'));
    expect(chunk(second, 'toolCalls', '"call-4"')).toBe(chunk(first, 'toolCalls', '"call-4"'));
    expect(second.chunks.filter((c) => c.kind === 'timeline').slice(0, 2)).toEqual(first.chunks.filter((c) => c.kind === 'timeline').slice(0, 2));

    // A retried failed call is a new object at the same key; a new call after it lands at the end.
    await execute({ type: 'StartToolCall', toolCallId: 'call-3', tool: 'search', input: { again: true } });
    await execute({ type: 'StartToolCall', toolCallId: 'call-6', tool: 'search', input: { t: 6 } });
    await execute({ type: 'StartToolCall', toolCallId: 'call-7', tool: 'search', input: { t: 7 } });
    const third = encoder.encode(state);
    expect(third).toEqual(encodeSnapshot(state, sizes));
    expect(chunk(third, 'toolCalls', '"call-3"').json).toContain('again');
    expect(chunk(third, 'toolCalls', '"call-7"').json).toContain('"call-6"');
  });
});

describe('a state restored from segments', () => {
  it('takes its segments as its sealed chunks only where they were cut as its repository cuts (segment sizes changed between writers)', async () => {
    const store = new InMemoryEventStore();
    const written: { version: number; json: string }[] = [];
    const save = store.saveSnapshot.bind(store);
    store.saveSnapshot = (snapshot, segments = []) => {
      written.push({ version: snapshot.version, json: JSON.stringify(snapshot.state) });
      return save(snapshot, segments);
    };
    const write = async (segmentSizes: typeof sizes, from: number, to: number) => {
      const service = new SessionService(new SessionRepository(store, { snapshotEvery: 4, segmentSizes, segmentCache: new SegmentCache() }));
      if (from === 0) await service.startSession(caller, { sessionId: 's' });
      for (let t = from; t < to; t++) {
        await service.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: `q${t}`, turnId: `turn-${t}` });
        await service.execute(caller, 's', { type: 'StartToolCall', toolCallId: `call-${t}`, tool: 'search', input: { t } });
        // A late change to an item sealed in the restored state's first chunks.
        if (t > from) await service.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: `late ${t}`, turnId: `turn-${from}` });
      }
      await service.repository.flushSnapshots();
    };
    // Written with larger segments, then restored and written on with smaller ones.
    await write({ turns: 3, toolCalls: 3, timeline: 5 }, 0, 8);
    const other = sizes;
    const before = written.length;
    await write(other, 8, 14);
    expect(written.length).toBeGreaterThan(before);
    const history = (await store.readStream(sessionStreamId('t', 's'))) as unknown as RecordedSessionEvent[];
    for (const snapshot of written.slice(before)) {
      expect(snapshot.json).toBe(JSON.stringify(nameSegments(encodeSnapshot(replay(history, snapshot.version), other)).head));
    }
  });
});
