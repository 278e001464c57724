/**
 * MEM, mixed tenant: the English and the Chinese sets' sessions in ONE tenant and index, as a
 * deployment with the defaults (no REWIND_EMBEDDING_MODEL) holds them. Recall@5 of the English
 * and of the Chinese follow-up questions (each names its place by pronoun only: "How much does it
 * cost?", "它多少钱？"), per session and tenant-wide, and the gap between them, for: `single` (one
 * model for every text, what the defaults did before language routing), `routed` (the defaults
 * now: each text embedded by its language's model; every model's keyword list searched),
 * `routed.keywords-own` (only the question's language's keyword list) and `routed.postgres` (the
 * defaults with REWIND_STORE=postgres: each model's items in the shared database's index).
 *
 * Each is asked twice, as a user asks (issue 39): right after writing — the indexer's keyword stage
 * (stage 1) has admitted every turn and no vector is attached yet, what a user meets when
 * `/v1/memory/status` says the index has the writes — and after catch-up (every vector attached).
 * Keys: `MEM.mixed.<setting>[.tenant]` after catch-up, `MEM.mixed.<setting>.right-after-writing[.tenant]`.
 */
import { join } from 'node:path';
import { ancestry } from '@rewind/domain';
import { SessionRepository, SessionService } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import {
  DeterministicRewriter,
  EngineSessionPaths,
  InMemoryPolicyStore,
  LanguageSpacesIndex,
  MemoryIndexer,
  MemoryRecall,
  type EmbeddingModel,
  type VectorIndex,
} from '@rewind/memory';
import { OnnxEmbeddingModel } from '@rewind/memory/onnx';
import { PostgresVectorIndex } from '@rewind/memory/postgres';
import { embeddingModelFor, memoryConfigFromEnv, modelFusion } from '@rewind/memory/runtime';
import { SqliteVectorIndex } from '@rewind/memory/sqlite-vec';
import type { TestDatabase } from '../../../support/postgres';
import { createBenchDatabase } from '../databases';
import { LatencyRecorder } from '../recorder';
import { latencyRow, type Row } from '../results';
import type { Sizes } from '../sizes';
import { englishDataset, type QuestionSpec, type RecallDataset } from './mem-dataset';
import { chineseDataset } from './mem-dataset-zh';
import { writeDataset } from './mem-recall';

export type MixedSetting = 'single' | 'routed' | 'routed.keywords-own' | 'routed.postgres';

const LABELS: Record<MixedSetting, string> = {
  single: 'one model for every text (all-minilm-l6-v2-q: the defaults before language routing)',
  routed: 'each text by its language’s model (the defaults now), keywords in every model’s list',
  'routed.keywords-own': 'each text by its language’s model, keywords in the question’s language’s list only',
  'routed.postgres': 'each text by its language’s model (the defaults now), PostgreSQL index (REWIND_STORE=postgres)',
};

const SINGLE_MODEL = 'all-minilm-l6-v2-q';

/** When the questions are asked: once stage 1 has admitted every turn (no vector yet), and once every vector is attached. */
const PASSES = [
  { key: '.right-after-writing', label: ', asked right after writing (keyword stage, no vector yet)', vectors: false },
  { key: '', label: '', vectors: true },
] as const;

/**
 * A set whose user comes back to a place and asks about it in the other language (the facts stay in
 * theirs): "再说说Hotel Avenida吧。" then "它多少钱？" after English facts, "Let's get back to 金鼎酒店 for a
 * moment." then "How much does it cost?" after Chinese ones. The question's language routes it to the
 * other model's vector space than its fact's: only the words they share (the place's name, once the
 * rewriter has put it in) can find the fact.
 */
function askedInOtherLanguage(facts: RecallDataset, other: RecallDataset): RecallDataset {
  const phrasings = (attribute: QuestionSpec['attribute']) => [...new Set(other.questions.filter((q) => q.attribute === attribute).map((q) => q.question))];
  return {
    ...facts,
    returnTo: other.returnTo,
    questions: facts.questions.map((q, i) => {
      const options = phrasings(q.attribute);
      return { ...q, question: options[i % options.length]! };
    }),
  };
}

/** `same-language`: each follow-up in its session's language; `cross-language`: in the other one (askedInOtherLanguage). */
export type MixedVariant = 'same-language' | 'cross-language';

export async function mixedTenantRecall(
  dir: string,
  sizes: Sizes,
  settings: readonly MixedSetting[] = ['single', 'routed', 'routed.keywords-own', 'routed.postgres'],
  variant: MixedVariant = 'same-language',
): Promise<Row[]> {
  const [sessionCount, entities] = sizes.quick ? [4, 4] : [20, 8];
  const english = englishDataset(sessionCount, entities);
  const chinese = chineseDataset(sessionCount, entities);
  // `en` and `zh` name the language of the facts (and of the sessions' other turns).
  const sets =
    variant === 'same-language' ? { en: english, zh: chinese } : { en: askedInOtherLanguage(english, chinese), zh: askedInOtherLanguage(chinese, english) };
  const keyOf = (setting: MixedSetting) => (variant === 'same-language' ? `MEM.mixed.${setting}` : `MEM.mixed.cross-language.${setting}`);
  const labelOf = (setting: MixedSetting) =>
    variant === 'same-language'
      ? `mixed tenant, ${LABELS[setting]}`
      : `mixed tenant, follow-ups in the other language (English column: English facts asked about in Chinese; Chinese column: the reverse), ${LABELS[setting]}`;
  const rows: Row[] = [];
  for (const setting of settings) {
    const name = `mixed-${variant}-${setting}`;
    const store = new SqliteEventStore({ filename: join(dir, `${name}.db`) });
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 100 }));
    // The defaults as the service builds them: an environment without REWIND_EMBEDDING_MODEL.
    const config = memoryConfigFromEnv({}, dir);
    const model: EmbeddingModel = setting === 'single' ? new OnnxEmbeddingModel({ model: SINGLE_MODEL }) : embeddingModelFor(config);
    let database: TestDatabase | undefined;
    let index: VectorIndex;
    if (setting === 'routed.postgres') {
      database = await createBenchDatabase(`mixed${process.pid}`, 'memory');
      // As postgresIndexFor builds it (memory-parts.ts): one table set, each model's items told apart by their space.
      const tables = new PostgresVectorIndex({ connectionString: database.url, poolSize: 2 });
      index = new LanguageSpacesIndex(tables, () => tables.sibling());
    } else {
      const file = new SqliteVectorIndex({ filename: join(dir, `${name}.memory.db`) });
      index = setting === 'single' ? file : new LanguageSpacesIndex(file, () => file.sibling(), { keywords: setting === 'routed' ? 'all' : 'question' });
    }
    const rowStore = setting === 'routed.postgres' ? ('postgres' as const) : ('sqlite' as const);
    const policies = new InMemoryPolicyStore();
    const indexer = new MemoryIndexer({ store, checkpoints: new InMemoryCheckpointStore(), index, model, policies, batchSize: 512 });
    try {
      const askedAt = new Map([...(await writeDataset(sessions, sets.en)), ...(await writeDataset(sessions, sets.zh))]);
      const ancestries = new Map<string, Set<number>>();
      for (const spec of [...sets.en.sessions, ...sets.zh.sessions]) {
        const state = await sessions.getState({ tenantId: 'bench', actor: 'bench' }, spec.sessionId);
        ancestries.set(spec.sessionId, new Set(ancestry(state.timeline, state.head)));
      }
      // Recall as the runtime builds it for this model (its fusion; memory-runtime.ts).
      const fusion = modelFusion(setting === 'single' ? { embeddingModel: SINGLE_MODEL } : config);
      const recall = new MemoryRecall(
        { index, model, paths: new EngineSessionPaths(sessions), rewriter: new DeterministicRewriter(), policies },
        { recencyWeight: config.recencyWeight, ...fusion },
      );
      for (const pass of PASSES) {
        await indexer.catchUp({ vectors: pass.vectors });
        const status = await indexer.status();
        for (const tenantWide of [false, true]) {
          const figures: Record<'en' | 'zh', { recallAt5: number; mrr: number; abandonedHits: number; questions: number }> = {} as never;
          const latency = new LatencyRecorder();
          for (const language of ['en', 'zh'] as const) {
            let [found, reciprocal, abandonedHits] = [0, 0, 0];
            const questions: QuestionSpec[] = sets[language].questions;
            for (const q of questions) {
              const result = await latency.time(() =>
                recall.recall({
                  tenantId: 'bench',
                  sessionId: q.sessionId,
                  query: q.question,
                  k: 5,
                  at: askedAt.get(`${q.sessionId}|${q.entity}|${q.attribute}`)!,
                  ...(tenantWide ? { scope: 'tenant' as const } : {}),
                }),
              );
              const rank = result.hits.findIndex((h) => h.text === q.expectedText);
              if (rank >= 0) [found, reciprocal] = [found + 1, reciprocal + 1 / (rank + 1)];
              abandonedHits += result.hits.filter((h) => !ancestries.get(h.sessionId)!.has(h.version)).length;
            }
            figures[language] = { recallAt5: found / questions.length, mrr: reciprocal / questions.length, abandonedHits, questions: questions.length };
          }
          const models = status.models.map((m) => `${m.id} (${m.items} items${m.pendingVectors ? `, ${m.pendingVectors} awaiting vectors` : ''})`).join(', ');
          rows.push(
            latencyRow(
              {
                workload: 'MEM',
                system: 'rewind',
                store: rowStore,
                path: 'library',
                key: `${keyOf(setting)}${pass.key}${tenantWide ? '.tenant' : ''}`,
                label: `${labelOf(setting)}${pass.label}${tenantWide ? ', tenant-wide' : ''}`,
                extra: {
                  en: figures.en,
                  zh: figures.zh,
                  gap: figures.en.recallAt5 - figures.zh.recallAt5,
                  pendingVectors: status.pendingVectors,
                  models: status.models.map((m) => `${m.id}: ${m.items}`).join(', '),
                },
                notes: [`${status.items} items, ${status.pendingVectors} awaiting vectors; models ${models}`],
              },
              latency,
            ),
          );
        }
      }
    } finally {
      await index.close();
      await model.close();
      await store.close();
      await database?.drop();
    }
  }
  return rows;
}
