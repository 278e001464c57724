import { describe, expect, it } from 'vitest';
import { evolveInPlace, initialSessionState, type RecordedSessionEvent, type SessionCommand } from '@rewind/domain';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
import { encodeSnapshot, SnapshotEncoder } from './snapshot-segments';
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
