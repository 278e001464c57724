import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decomposeQuestion, DeterministicDecomposer, MAX_SUB_QUESTIONS, namesIn, NO_DECOMPOSER } from './query-decomposer';

describe('deterministic question decomposer', () => {
  it('reads the names of a question, not its first word, question words or dates, without the possessive', () => {
    expect(namesIn('What do Priya and Tomasz both cook?')).toEqual(['Priya', 'Tomasz']);
    expect(namesIn("Based on Lena's notes, what would she buy in New York?")).toEqual(['Lena', 'New York']);
    expect(namesIn('When did Omar fly to Oslo in March?')).toEqual(['Omar', 'Oslo']);
  });

  it('gives one sub-question per named person when two are asked about together', () => {
    expect(decomposeQuestion('What do Priya and Tomasz both cook on weekends?')).toEqual([
      'What do Priya cook on weekends?',
      'What do Tomasz cook on weekends?',
    ]);
    expect(decomposeQuestion('Which cities have both Aiko and Rafael visited?')).toEqual([
      'Which cities have Aiko visited?',
      'Which cities have Rafael visited?',
    ]);
  });

  it('splits two questions joined by a comma or "and", reading later pronouns as the first name', () => {
    expect(decomposeQuestion('Who did Omar meet in Lisbon, and who did he travel home with?')).toEqual([
      'Who did Omar meet in Lisbon',
      'who did Omar travel home with?',
    ]);
    expect(decomposeQuestion('What does Lena grow in her garden and why does she sell it?')).toEqual([
      'What does Lena grow in her garden',
      'why does Lena sell it?',
    ]);
  });

  it('keeps one question that merely has "and" in it', () => {
    expect(decomposeQuestion('What does Lena do that she loves and can earn money from?')).toEqual([]);
    expect(decomposeQuestion('What did Lena buy at the market?')).toEqual([]);
  });

  it('gives each event of a relation in time, but not a date', () => {
    expect(decomposeQuestion('What did Omar cook after his trip to the mountains?')).toEqual(['What did Omar cook', "Omar's trip to the mountains?"]);
    expect(decomposeQuestion('What did Omar cook before March 3, 2024?')).toEqual([]);
  });

  it('drops what a question sets aside, and gives each side of a comparison', () => {
    expect(decomposeQuestion('What sports does Aiko play besides tennis?')).toEqual(['What sports does Aiko play?']);
    expect(decomposeQuestion('Does Rafael like hiking more than swimming in lakes?')).toEqual(['Does Rafael like hiking', 'swimming in lakes?']);
  });

  it('with the facet rule, asks a list or inference question about one person without the name too', () => {
    expect(decomposeQuestion('What hobbies has Lena picked up?', { facets: true })).toEqual(['What hobbies has picked up?']);
    expect(decomposeQuestion("What might Omar's job be?", { facets: true })).toEqual(['What might job be?']);
    expect(decomposeQuestion('What hobbies has Lena picked up?')).toEqual([]);
    // Neither a list nor an inference: the name is what is asked about.
    expect(decomposeQuestion('Where did Lena buy her bike?', { facets: true })).toEqual([]);
  });

  it('leaves questions in other languages as they are (no rules for them)', () => {
    expect(decomposeQuestion('小明和小红都喜欢什么运动？')).toEqual([]);
  });

  it('never returns the question itself, a duplicate, an empty part, or more than the bound', async () => {
    const word = fc.constantFrom(
      'Priya',
      'Tomasz',
      'and',
      'both',
      'after',
      'before',
      'besides',
      'than',
      'more',
      ',',
      'who',
      'did',
      'he',
      'cook',
      'the',
      'trip',
      'garden',
      '?',
      'What',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(word, { maxLength: 16 }), fc.integer({ min: 1, max: 4 }), async (words, max) => {
        const question = words.join(' ');
        const parts = await new DeterministicDecomposer({ max }).decompose(question);
        expect(parts.length).toBeLessThanOrEqual(Math.min(max, MAX_SUB_QUESTIONS + 1));
        expect(new Set(parts).size).toBe(parts.length);
        for (const part of parts) {
          expect(part.trim().length).toBeGreaterThan(0);
          expect(part.trim()).not.toBe(question.trim());
        }
      }),
    );
  });

  it('the port without a decomposer asks every question as it is', async () => {
    expect(await NO_DECOMPOSER.decompose('What do Priya and Tomasz both cook?')).toEqual([]);
  });
});
