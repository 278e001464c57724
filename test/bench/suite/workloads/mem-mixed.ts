/**
 * MEM, mixed tenant: the English and the Chinese sets' sessions in ONE tenant and index, as a
 * deployment with the defaults (no REWIND_EMBEDDING_MODEL) holds them. Recall@5 of the English
 * and of the Chinese questions, per session and tenant-wide, and the gap between them, for:
 * `single` (one model for every text, what the defaults did before language routing), `routed`
 * (the defaults now: each text embedded by its language's model; every model's keyword list
 * searched) and `routed.keywords-own` (only the question's language's keyword list).
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
import { embeddingModelFor, memoryConfigFromEnv } from '@rewind/memory/runtime';
import { SqliteVectorIndex } from '@rewind/memory/sqlite-vec';
import { LatencyRecorder } from '../recorder';
import { latencyRow, type Row } from '../results';
import type { Sizes } from '../sizes';
import { englishDataset, type QuestionSpec } from './mem-dataset';
import { chineseDataset } from './mem-dataset-zh';
import { writeDataset } from './mem-recall';

const base = { workload: 'MEM' as const, system: 'rewind' as const, store: 'sqlite' as const, path: 'library' };

type Setting = 'single' | 'routed' | 'routed.keywords-own';

const LABELS: Record<Setting, string> = {
  single: 'one model for every text (all-minilm-l6-v2-q: the defaults before language routing)',
  routed: 'each text by its language’s model (the defaults now), keywords in every model’s list',
  'routed.keywords-own': 'each text by its language’s model, keywords in the question’s language’s list only',
};

export async function mixedTenantRecall(dir: string, sizes: Sizes, settings: readonly Setting[] = ['single', 'routed', 'routed.keywords-own']): Promise<Row[]> {
  const [sessionCount, entities] = sizes.quick ? [4, 4] : [20, 8];
  const sets = { en: englishDataset(sessionCount, entities), zh: chineseDataset(sessionCount, entities) };
  const rows: Row[] = [];
  for (const setting of settings) {
    const name = `mixed-${setting}`;
    const store = new SqliteEventStore({ filename: join(dir, `${name}.db`) });
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 100 }));
    const file = new SqliteVectorIndex({ filename: join(dir, `${name}.memory.db`) });
    // The defaults as the service builds them: an environment without REWIND_EMBEDDING_MODEL.
    const config = memoryConfigFromEnv({}, dir);
    const model: EmbeddingModel = setting === 'single' ? new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q' }) : embeddingModelFor(config);
    const index: VectorIndex =
      setting === 'single' ? file : new LanguageSpacesIndex(file, () => file.sibling(), { keywords: setting === 'routed' ? 'all' : 'question' });
    const policies = new InMemoryPolicyStore();
    const indexer = new MemoryIndexer({ store, checkpoints: new InMemoryCheckpointStore(), index, model, policies, batchSize: 512 });
    try {
      const askedAt = new Map([...(await writeDataset(sessions, sets.en)), ...(await writeDataset(sessions, sets.zh))]);
      await indexer.catchUp();
      const status = await indexer.status();
      const ancestries = new Map<string, Set<number>>();
      for (const spec of [...sets.en.sessions, ...sets.zh.sessions]) {
        const state = await sessions.getState({ tenantId: 'bench', actor: 'bench' }, spec.sessionId);
        ancestries.set(spec.sessionId, new Set(ancestry(state.timeline, state.head)));
      }
      const recall = new MemoryRecall({ index, model, paths: new EngineSessionPaths(sessions), rewriter: new DeterministicRewriter(), policies });
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
        rows.push(
          latencyRow(
            {
              ...base,
              key: `MEM.mixed.${setting}${tenantWide ? '.tenant' : ''}`,
              label: `mixed tenant, ${LABELS[setting]}${tenantWide ? ', tenant-wide' : ''}`,
              extra: {
                en: figures.en,
                zh: figures.zh,
                gap: figures.en.recallAt5 - figures.zh.recallAt5,
                models: status.models.map((m) => `${m.id}: ${m.items}`).join(', '),
              },
              notes: [`${status.items} items; models ${status.models.map((m) => `${m.id} (${m.items} items)`).join(', ')}`],
            },
            latency,
          ),
        );
      }
    } finally {
      await index.close();
      await model.close();
      await store.close();
    }
  }
  return rows;
}
