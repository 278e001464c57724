import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryItemExtractor, type MemorySourceEvent } from './memory-item';
import { indexedText, TurnContext, withoutContext } from './turn-context';

const extractor = new MemoryItemExtractor();

function message(version: number, parentVersion: number | null, content: string, role: 'user' | 'agent' = 'user', sessionId = 's'): MemorySourceEvent {
  return {
    eventId: `${sessionId}-${version}`,
    type: role === 'user' ? 'UserMessageReceived' : 'AgentMessageProduced',
    data: { content },
    streamVersion: version,
    parentVersion,
    globalPosition: version,
    metadata: { tenantId: 't', sessionId, occurredAt: '2026-01-01T00:00:00Z' },
  };
}

describe('turn context (causal windows)', () => {
  it("gives a message its previous turn on its path, skipping what gave no item, and shows the turn's own text", () => {
    const context = new TurnContext();
    const attach = (event: MemorySourceEvent) => context.attach(event, extractor.itemsOf(event));
    expect(attach(message(1, null, 'Where did Tomás film the video?'))[0]!.context).toBeUndefined();
    attach(message(2, 1, 'thanks!', 'agent'));
    const [item] = attach(message(3, 2, 'In Faro, by the beach.', 'agent'));
    expect(item!.text).toBe('In Faro, by the beach.');
    expect(item!.context).toBe('Where did Tomás film the video?');
    expect(indexedText(item!)).toBe('Where did Tomás film the video?\nIn Faro, by the beach.');
    expect(withoutContext(item!)).not.toHaveProperty('context');
  });

  it('keeps the end of a long previous turn, and sessions apart', () => {
    const context = new TurnContext({ maxContextChars: 10 });
    context.attach(message(1, null, 'a long story that ends with Lisbon'), extractor.itemsOf(message(1, null, 'a long story that ends with Lisbon')));
    const [item] = context.attach(message(2, 1, 'Lovely city', 'agent'), extractor.itemsOf(message(2, 1, 'Lovely city', 'agent')));
    expect(item!.context).toBe('ith Lisbon');
    const other = message(2, 1, 'Another session entirely', 'agent', 'other');
    expect(context.attach(other, extractor.itemsOf(other))[0]!.context).toBeUndefined();
  });

  it('forgets a shredded session: a later turn is never searched with what it said before', () => {
    const context = new TurnContext();
    const attach = (event: MemorySourceEvent) => context.attach(event, extractor.itemsOf(event));
    attach(message(1, null, 'My passport number is X1234567'));
    attach(message(1, null, 'Another session keeps its turns', 'user', 'other'));
    context.forget({ tenantId: 't', sessionId: 's' });
    expect(attach(message(2, 1, 'What else do you need?', 'agent'))[0]!.context).toBeUndefined();
    expect(attach(message(2, 1, 'It does', 'agent', 'other'))[0]!.context).toBe('Another session keeps its turns');
    context.forget({ tenantId: 't' });
    expect(attach(message(3, 2, 'Nothing of the tenant is left', 'agent', 'other'))[0]!.context).toBeUndefined();
  });

  it('never joins a turn with one from another branch: the context is the nearest message among its own ancestors', () => {
    // A random timeline: each event's parent is any earlier version (undo and a new branch), or none.
    const timeline = fc.array(fc.tuple(fc.nat(), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(timeline, (steps) => {
        const context = new TurnContext();
        const parents: (number | null)[] = [];
        const texts: (string | null)[] = [];
        steps.forEach(([pick, root, chitChat], i) => {
          const version = i + 1;
          const parent = root || i === 0 ? null : (pick % i) + 1;
          const text = chitChat ? 'ok' : `turn ${version} on its branch`;
          parents.push(parent);
          const event = message(version, parent, text);
          const items = context.attach(event, extractor.itemsOf(event));
          texts.push(items.length > 0 ? text : null);
          let expected: string | undefined;
          for (let v = parent, hops = 0; v !== null && hops < 4; v = parents[v - 1]!, hops++) {
            if (texts[v - 1] !== null) {
              expected = texts[v - 1]!;
              break;
            }
          }
          if (items.length > 0) expect(items[0]!.context).toBe(expected);
        });
      }),
    );
  });
});
