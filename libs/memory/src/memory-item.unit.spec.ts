import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText, estimateTokens } from './chunking';
import { LowInformationFilter } from './low-information';
import { MemoryItemExtractor, type MemorySourceEvent } from './memory-item';

function event(type: string, data: unknown, version = 3): MemorySourceEvent {
  return {
    eventId: `e-${version}`,
    type,
    data,
    streamVersion: version,
    globalPosition: 100 + version,
    metadata: { tenantId: 't1', sessionId: 's1', occurredAt: '2026-05-01T10:00:00.000Z' },
  };
}

describe('low-information filter', () => {
  const filter = new LowInformationFilter();

  it.each(['hi', 'Hello!', 'thanks', 'Thank you very much!', 'ok', 'OK, got it.', '👍', '你好', '谢谢', '谢谢！', '好的，谢谢', '嗯嗯', '  '])(
    'drops %j',
    (text) => expect(filter.isLowInformation(text)).toBe(true),
  );

  it.each(['I booked a hotel in Lisbon for May', 'no peanuts please', '我订了里斯本的酒店', '谢谢，我想订五月的酒店', 'hi, my name is Ana', 'Room 42'])(
    'keeps %j',
    (text) => expect(filter.isLowInformation(text)).toBe(false),
  );

  it('is configurable: a team that wants greetings indexed passes its own lists', () => {
    const permissive = new LowInformationFilter({ fillerWords: [], fillerPhrases: [] });
    expect(permissive.isLowInformation('hello')).toBe(false);
    expect(permissive.isLowInformation('你好')).toBe(false);
  });
});

describe('chunking', () => {
  it('keeps a short text as one chunk, unchanged', () => {
    expect(chunkText('A short note.')).toEqual(['A short note.']);
  });

  it('cuts long texts at sentence ends, every chunk within the budget, no word lost', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,12}( [a-z]{1,12}){0,20}[.!?]$/), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 8, max: 120 }),
        (sentences, maxTokens) => {
          const text = sentences.join(' ');
          const chunks = chunkText(text, { maxTokens });
          for (const chunk of chunks) expect(estimateTokens(chunk)).toBeLessThanOrEqual(maxTokens);
          expect(chunks.join(' ').split(/\s+/)).toEqual(text.split(/\s+/));
        },
      ),
    );
  });

  it('cuts Chinese text too (one token per character)', () => {
    const text = '我们在里斯本订了酒店。'.repeat(60);
    const chunks = chunkText(text, { maxTokens: 50 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(estimateTokens(chunk)).toBeLessThanOrEqual(50);
    expect(chunks.join('')).toBe(text);
  });
});

describe('memory items from events', () => {
  const extractor = new MemoryItemExtractor();

  it('a user message gives one item with tenant, session, version, event id, role and time', () => {
    const [item, ...rest] = extractor.itemsOf(event('UserMessageReceived', { turnId: 'u1', messageId: 'm1', content: 'I booked a hotel in Lisbon for May' }));
    expect(rest).toEqual([]);
    expect(item).toEqual({
      id: 'e-3:0',
      tenantId: 't1',
      sessionId: 's1',
      eventId: 'e-3',
      version: 3,
      globalPosition: 103,
      role: 'user',
      occurredAt: '2026-05-01T10:00:00.000Z',
      chunk: 0,
      text: 'I booked a hotel in Lisbon for May',
    });
  });

  it('agent answers, the visible part of interrupted answers, tool results and memory writes are indexed', () => {
    expect(extractor.itemsOf(event('AgentMessageProduced', { turnId: 'u1', messageId: 'm2', content: 'Hotel Avenida is booked.' }))[0]).toMatchObject({
      role: 'agent',
      text: 'Hotel Avenida is booked.',
    });
    expect(extractor.itemsOf(event('TurnInterrupted', { turnId: 'u1', partialContent: 'The flight leaves at' }))[0]).toMatchObject({
      role: 'agent',
      text: 'The flight leaves at',
    });
    expect(extractor.itemsOf(event('ToolCallSucceeded', { toolCallId: 'c1', output: { bookingId: 'B-7', hotel: 'Avenida' } }))[0]).toMatchObject({
      role: 'tool',
      text: 'bookingId: B-7; hotel: Avenida',
    });
    expect(extractor.itemsOf(event('MemoryWritten', { key: 'diet', value: 'vegetarian' }))[0]).toMatchObject({
      role: 'memory',
      text: 'diet: vegetarian',
      memoryKey: 'diet',
    });
  });

  it('greetings, failed tool calls, an empty interrupt and session bookkeeping are not', () => {
    expect(extractor.itemsOf(event('UserMessageReceived', { turnId: 'u1', messageId: 'm1', content: 'thanks!' }))).toEqual([]);
    expect(extractor.itemsOf(event('UserMessageReceived', { turnId: 'u1', messageId: 'm1', content: '谢谢' }))).toEqual([]);
    expect(extractor.itemsOf(event('ToolCallFailed', { toolCallId: 'c1', error: 'timeout', retryable: true }))).toEqual([]);
    expect(extractor.itemsOf(event('TurnInterrupted', { turnId: 'u1', partialContent: '' }))).toEqual([]);
    expect(extractor.itemsOf(event('RollbackRequested', { rollbackId: 'r1' }))).toEqual([]);
    expect(extractor.itemsOf(event('SessionStarted', { sessionId: 's1', title: 'Trip to Lisbon', metadata: {} }))).toEqual([]);
  });

  it("the agent's thoughts are not: recall feeds the LLM context, which holds no reasoning unless asked for", () => {
    const thought = { thoughtId: 'th1', turnId: 'u1', content: 'The user probably wants a hotel near the river in Lisbon', steps: ['search hotels'] };
    expect(extractor.itemsOf(event('AgentThoughtRecorded', thought))).toEqual([]);
  });

  it('a long message gives one item per chunk with distinct ids', () => {
    const items = extractor.itemsOf(
      event('AgentMessageProduced', { turnId: 'u1', messageId: 'm2', content: 'The itinerary has many stops along the coast. '.repeat(80) }),
    );
    expect(items.length).toBeGreaterThan(1);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(items.map((i) => i.chunk)).toEqual(items.map((_, i) => i));
  });
});
