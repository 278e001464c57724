import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryItem } from './memory-item';
import { favourSpeaker, ofNamedSpeaker, speakerOf, speakersNamed } from './recall-speaker';
import type { ScoredItem } from './vector-index';

const hit = (text: string, score: number, version = 1): ScoredItem => ({
  item: {
    id: `${version}`,
    tenantId: 't1',
    sessionId: 's1',
    eventId: `${version}`,
    version,
    globalPosition: version,
    role: 'agent',
    occurredAt: '',
    chunk: 0,
    text,
  } as MemoryItem,
  score,
});

describe('speaker focus', () => {
  it('reads the speaker label of a message, after an optional stamp', () => {
    expect(speakerOf('[1:56 pm on 8 May, 2023] Melanie: I saw Matt Patterson live')).toBe('Melanie');
    expect(speakerOf('Dr. Ada Lovelace: the engine runs')).toBe('Dr. Ada Lovelace');
    expect(speakerOf('Caroline: hi')).toBe('Caroline');
    expect(speakerOf('note: buy milk')).toBeNull();
    expect(speakerOf('I saw him at 10:30 yesterday')).toBeNull();
    expect(speakerOf('Agenda for today')).toBeNull();
  });

  it('finds the speakers a question names, by a whole word of the name', () => {
    expect([...speakersNamed('What musical artists has Melanie seen?', ['Melanie', 'Caroline'])]).toEqual(['Melanie']);
    expect([...speakersNamed("What is Ada's job?", ['Dr. Ada Lovelace', 'Bob'])]).toEqual(['Dr. Ada Lovelace']);
    expect([...speakersNamed('What do Jon and Gina both have in common?', ['Jon', 'Gina'])]).toEqual(['Jon', 'Gina']);
    expect(speakersNamed('Did Melanies go?', ['Melanie']).size).toBe(0);
  });

  it("raises the named speaker's messages by a share of their own score", () => {
    const ranked = [hit('Caroline: Did you go to the concert?', 1, 1), hit('Melanie: Matt Patterson has such a voice', 0.7, 2), hit('Melanie: hi', 0.2, 3)];
    const out = favourSpeaker('What musical artists has Melanie seen?', ranked, 0.5);
    expect(out.map((h) => h.item.version)).toEqual([2, 1, 3]);
    expect(out[0]!.score).toBeCloseTo(0.7 * 1.5);
    expect(out[2]!.score).toBeCloseTo(0.2 * 1.5);
  });

  it('changes nothing when the question names no speaker, or every one, or the weight is 0', () => {
    const ranked = [hit('Caroline: a', 1, 1), hit('Melanie: b', 0.5, 2), hit('unlabelled text', 0.4, 3)];
    const ids = (hits: ScoredItem[]) => hits.map((h) => h.item.version);
    expect(ids(favourSpeaker('What did they see?', ranked, 0.5))).toEqual([1, 2, 3]);
    expect(ids(favourSpeaker('What do Caroline and Melanie share?', ranked, 0.5))).toEqual([1, 2, 3]);
    expect(ids(favourSpeaker('What has Melanie seen?', ranked, 0))).toEqual([1, 2, 3]);
  });

  it('returns the same hits, and only raises scores', () => {
    const names = ['Ann', 'Bob', 'Cy'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...names, 'nobody'), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 0, maxLength: 20 }),
        fc.constantFrom(...names),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rows, asked, weight) => {
          const ranked = rows.map(([who, score], i) => hit(who === 'nobody' ? `plain ${i}` : `${who}: turn ${i}`, score, i)).sort((a, b) => b.score - a.score);
          const out = favourSpeaker(`What has ${asked} done?`, ranked, weight);
          expect(out.map((h) => h.item.id).sort()).toEqual(ranked.map((h) => h.item.id).sort());
          const before = new Map(ranked.map((h) => [h.item.id, h.score]));
          for (const h of out) expect(h.score).toBeGreaterThanOrEqual(before.get(h.item.id)!);
          expect(out.every((h, i) => i === 0 || h.score <= out[i - 1]!.score)).toBe(true);
        },
      ),
    );
  });
});

describe('ofNamedSpeaker', () => {
  const hits = [hit('[d] Melanie: took the kids camping', 3, 1), hit('[d] Caroline: my kids?', 2, 2), hit('no label here', 1, 3)];

  it("keeps only the named speaker's labelled hits", () => {
    expect(ofNamedSpeaker('What has Melanie done with her family?', hits).map((h) => h.item.version)).toEqual([1]);
  });

  it('keeps every hit when the question names no labelled speaker, or all of them', () => {
    expect(ofNamedSpeaker('What did they do with the family?', hits)).toHaveLength(3);
    expect(ofNamedSpeaker('What do Melanie and Caroline both do with family?', hits)).toHaveLength(3);
  });
});
