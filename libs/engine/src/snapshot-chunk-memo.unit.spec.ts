import { describe, expect, it } from 'vitest';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
import { encodeSnapshot } from './snapshot-segments';

const caller = { tenantId: 't', actor: 'tester' };
const sizes = { turns: 2, toolCalls: 2, timeline: 4 };

/** What a fresh encoding (no remembered chunks: new containers) gives for the same state. */
const fresh = (state: Parameters<typeof encodeSnapshot>[0]) => encodeSnapshot(structuredClone(state), sizes);

describe('encodeSnapshot remembers sealed chunks', () => {
  it('writes a sealed chunk again when an item in it changes in place, and reuses it otherwise', async () => {
    const service = new SessionService(new SessionRepository(new InMemoryEventStore(), { snapshotEvery: 0 }));
    await service.startSession(caller, { sessionId: 's' });
    for (let t = 0; t < 6; t++) {
      await service.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: `q${t}`, turnId: `turn-${t}` });
      await service.execute(caller, 's', { type: 'StartToolCall', toolCallId: `call-${t}`, tool: 'search', input: { t } });
    }
    const state = await service.getState(caller, 's');
    const first = encodeSnapshot(state, sizes);
    expect(first).toEqual(fresh(state));
    expect(encodeSnapshot(state, sizes)).toEqual(first);

    // Change items of the first (sealed) chunks in place, the way evolve does.
    await service.execute(caller, 's', { type: 'CompleteToolCall', toolCallId: 'call-0', output: { found: 1 } });
    await service.execute(caller, 's', { type: 'FailToolCall', toolCallId: 'call-1', error: 'timeout', retryable: true });
    await service.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: 'late answer', turnId: 'turn-0' });
    await service.execute(caller, 's', { type: 'InterruptTurn', turnId: 'turn-1', partialContent: '' });
    const changed = await service.getState(caller, 's');
    expect(changed).toBe(state); // the cached state changed in place: the same containers
    const second = encodeSnapshot(changed, sizes);
    expect(second).toEqual(fresh(changed));
    expect(second.chunks[0]!.json).not.toBe(first.chunks[0]!.json);
    expect(second.chunks[0]!.json).toContain('late answer');
    expect(second.chunks.find((c) => c.kind === 'turns' && c.json.includes('turn-1'))!.json).toContain('interrupted');
    expect(second.chunks.find((c) => c.kind === 'toolCalls')!.json).toContain('timeout');

    // A retried (restarted) failed call is a new object at the same key.
    await service.execute(caller, 's', { type: 'StartToolCall', toolCallId: 'call-1', tool: 'search', input: { again: true } });
    expect(encodeSnapshot(changed, sizes)).toEqual(fresh(changed));
  });
});
