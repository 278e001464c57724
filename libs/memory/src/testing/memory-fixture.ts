import { SessionRepository, SessionService, type Caller } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import { DeterministicRewriter } from '../deterministic-rewriter';
import type { EmbeddingModel } from '../embedding-model';
import { EngineSessionPaths } from '../engine-session-paths';
import { MemoryIndexer } from '../memory-indexer';
import { InMemoryPolicyStore } from '../memory-policy';
import { MemoryRecall, type MemoryRecallOptions } from '../recall';
import type { VectorIndex } from '../vector-index';

/** An engine on an in-memory store, with an indexer following its global log and recall over it. */
export function memoryFixture(model: EmbeddingModel, index: VectorIndex, recallOptions: MemoryRecallOptions = {}) {
  const store = new InMemoryEventStore();
  const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
  const policies = new InMemoryPolicyStore();
  const checkpoints = new InMemoryCheckpointStore();
  const indexer = new MemoryIndexer({ store, checkpoints, index, model, policies });
  const recall = new MemoryRecall({ index, model, paths: new EngineSessionPaths(sessions), rewriter: new DeterministicRewriter(), policies }, recallOptions);
  const caller = (tenantId = 't1'): Caller => ({ tenantId, actor: 'test' });
  const say = async (sessionId: string, role: 'user' | 'agent', content: string, tenantId = 't1') =>
    (await sessions.execute(caller(tenantId), sessionId, { type: 'RecordMessage', role, content })).version;
  return { store, sessions, policies, checkpoints, indexer, recall, caller, say };
}
