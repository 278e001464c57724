import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddingModelInfo } from '../embedding-model';
import { LanguageSpacesIndex } from '../language/language-spaces-index';
import type { MemoryItem } from '../memory-item';
import type { MemoryScope, VectorIndex } from '../vector-index';
import { axisVector, memoryItem } from './contract-items';

/** A language-routed test model: English in a 16-dimensional block, Chinese in an 8-dimensional one after it. */
const EN = { id: 'contract-en', dimensions: 16, offset: 0, language: 'en' } as const;
const ZH = { id: 'contract-zh', dimensions: 8, offset: 16, language: 'zh' } as const;
const ROUTED: EmbeddingModelInfo = { id: `${EN.id}+${ZH.id}`, dimensions: EN.dimensions + ZH.dimensions, spaces: [EN, ZH] };

/** A unit vector of the sum space with `axis` set in the language's block (every other block zero), as LanguageRoutedEmbeddingModel makes them. */
function routedVector(language: 'en' | 'zh', axis: number): Float32Array {
  const space = language === 'en' ? EN : ZH;
  const vector = new Float32Array(ROUTED.dimensions);
  vector.set(axisVector(space.dimensions, axis), space.offset);
  return vector;
}

/** One English and one Chinese item of a scope, both naming the same rare place (so both languages' keyword lists are searched for it). */
function pair(scope: MemoryScope & { sessionId: string }, n: number): { en: MemoryItem; zh: MemoryItem } {
  const common = { tenantId: scope.tenantId, sessionId: scope.sessionId, globalPosition: n };
  return {
    en: memoryItem({ ...common, id: `en-${scope.tenantId}-${scope.sessionId}-${n}:0`, text: `The Quixotrella hotel code is ${n}` }),
    zh: memoryItem({ ...common, id: `zh-${scope.tenantId}-${scope.sessionId}-${n}:0`, text: `Quixotrella 酒店的密码是${n}号` }),
  };
}

/**
 * The contract of an adapter under language routing (the defaults: each language's model in its
 * own storage, LanguageSpacesIndex over the adapter's siblings): every count is per model, and
 * every clean-up path (deleteScope, shredScope; through an index not opened, as the CLI and a
 * process without memory shred) leaves nothing of either language. Run by vectorIndexContract
 * when the adapter gives `sibling`.
 */
export function languageSpacesContract(name: string, create: () => Promise<VectorIndex>, sibling: (base: VectorIndex) => VectorIndex, twoStage: boolean): void {
  describe(`${name}, one model per language (LanguageSpacesIndex)`, () => {
    let base: VectorIndex;
    let index: LanguageSpacesIndex;
    const s1 = { tenantId: 't1', sessionId: 's1' };
    const s2 = { tenantId: 't1', sessionId: 's2' };
    const other = { tenantId: 't2', sessionId: 's1' };

    beforeEach(async () => {
      base = await create();
      index = new LanguageSpacesIndex(base, () => sibling(base));
      await index.open(ROUTED);
    });
    afterEach(async () => {
      await index.close();
    });

    /** Both languages' items of each scope, embedded (and with two stages, one more pair per scope awaiting its vectors). */
    async function writeBothLanguages(): Promise<void> {
      for (const [k, scope] of [s1, s2, other].entries()) {
        const { en, zh } = pair(scope, k * 10 + 1);
        await index.upsert([
          { item: en, vector: routedVector('en', 1) },
          { item: zh, vector: routedVector('zh', 1) },
        ]);
        if (twoStage) {
          const pending = pair(scope, k * 10 + 2);
          expect(await index.admit!([pending.en, pending.zh])).toBe(2);
        }
      }
    }
    const perScope = twoStage ? 2 : 1;

    /** What a scope still holds of each language: by keywords (the place both name), by vector in each block, counted. */
    async function leftOf(scope: MemoryScope) {
      const ids = (hits: { item: { id: string } }[]) => hits.map((h) => h.item.id).sort();
      return {
        keywords: ids(await index.searchText('Quixotrella', scope, 20)),
        chineseKeywords: ids(await index.searchText('酒店', scope, 20)),
        english: ids(await index.searchVector(routedVector('en', 1), scope, 20)),
        chinese: ids(await index.searchVector(routedVector('zh', 1), scope, 20)),
        count: await index.count(scope),
      };
    }
    const nothing = { keywords: [], chineseKeywords: [], english: [], chinese: [], count: 0 };

    it('keeps each language in its own model: status counts items (and the backlog) per model, searches find both', async () => {
      await writeBothLanguages();
      const backlog = twoStage ? { pendingVectors: 3 } : {};
      expect(await index.models()).toEqual([
        { id: EN.id, dimensions: EN.dimensions, language: 'en', items: 3 * perScope, ...backlog },
        { id: ZH.id, dimensions: ZH.dimensions, language: 'zh', items: 3 * perScope, ...backlog },
      ]);
      expect(await index.count()).toBe(6 * perScope);
      const left = await leftOf(s1);
      expect(left.keywords).toHaveLength(2 * perScope);
      expect(left.english).toEqual([pair(s1, 1).en.id]);
      expect(left.chinese).toEqual([pair(s1, 1).zh.id]);
      if (twoStage) expect(await index.pendingVectors!()).toMatchObject({ items: 6 });
    });

    it('a keyword hit of another language’s model comes without a vector (its cosine with the question would be 0 by construction), one of the question’s language with its own', async () => {
      await writeBothLanguages();
      const hits = await index.searchText('Quixotrella 酒店在哪里？', s1, 20);
      const embedded = (id: string) => hits.find((h) => h.item.id === id)!;
      expect(embedded(pair(s1, 1).zh.id).vector).toEqual(routedVector('zh', 1));
      expect(embedded(pair(s1, 1).en.id).vector).toBeUndefined();
      const english = await index.searchText('Where is the Quixotrella hotel?', s1, 20);
      expect(english.find((h) => h.item.id === pair(s1, 1).en.id)!.vector).toEqual(routedVector('en', 1));
      expect(english.find((h) => h.item.id === pair(s1, 1).zh.id)!.vector).toBeUndefined();
    });

    it('deleteScope (a session, then a tenant) leaves nothing of either language in the scope, and each model keeps the rest', async () => {
      await writeBothLanguages();
      expect(await index.deleteScope(s1)).toBe(2 * perScope);
      expect(await leftOf(s1)).toEqual(nothing);
      expect((await leftOf(s2)).count).toBe(2 * perScope);
      expect((await index.models()).map((m) => m.items)).toEqual([2 * perScope, 2 * perScope]);
      expect(await index.deleteScope({ tenantId: 't1' })).toBe(2 * perScope);
      expect(await leftOf({ tenantId: 't1' })).toEqual(nothing);
      expect((await index.models()).map((m) => m.items)).toEqual([perScope, perScope]);
      expect((await leftOf(other)).keywords).toHaveLength(2 * perScope);
    });

    it('a shred through an index opened for no model (the CLI’s, a process without memory) removes the scope’s items of every model', async () => {
      await writeBothLanguages();
      const unopened = new LanguageSpacesIndex(sibling(base), () => sibling(base));
      expect(await unopened.shredScope(s1)).toBe(2 * perScope);
      expect(await leftOf(s1)).toEqual(nothing);
      expect(await unopened.shredScope({ tenantId: 't1' })).toBe(2 * perScope);
      expect(await leftOf({ tenantId: 't1' })).toEqual(nothing);
      expect((await index.models()).map((m) => m.items)).toEqual([perScope, perScope]);
      expect((await leftOf(other)).count).toBe(2 * perScope);
    });

    if (twoStage) {
      it('a vector attached after a shred brings back nothing of either language, and each model’s backlog forgets the shredded items', async () => {
        await writeBothLanguages();
        const shredded = pair(s1, 2);
        expect(await index.shredScope(s1)).toBe(4);
        expect((await index.models()).map((m) => m.pendingVectors)).toEqual([2, 2]);
        const attached = await index.attachVectors!([
          { item: shredded.en, vector: routedVector('en', 1) },
          { item: shredded.zh, vector: routedVector('zh', 1) },
          { item: pair(s2, 12).en, vector: routedVector('en', 1) },
          { item: pair(s2, 12).zh, vector: routedVector('zh', 1) },
        ]);
        expect(attached).toBe(2);
        expect(await leftOf(s1)).toEqual(nothing);
        expect((await leftOf(s2)).english).toHaveLength(2);
        expect((await index.models()).map((m) => m.pendingVectors)).toEqual([1, 1]);
      });
    }
  });
}
