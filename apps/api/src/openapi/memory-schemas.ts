import { array, bool, int, obj, oneOf, orNull, ref, str, type JsonSchema } from './schema-builders';

/** Long-term memory: recall, per-session policy, the index's status. */
export const MEMORY_SCHEMAS: Record<string, JsonSchema> = {
  RecallHit: obj({
    text: str(),
    score: { type: 'number' },
    sessionId: str(),
    version: int('The step the item comes from (on the current path).'),
    eventId: str(),
    role: oneOf(['user', 'agent', 'tool', 'memory']),
    occurredAt: str({ format: 'date-time' }),
  }),
  Recall: obj({
    query: str({ example: 'what about its price?' }),
    rewrittenQuery: str({ description: 'The question retrieval used (the query itself when not rewritten).', example: "what about Hotel Avenida's price?" }),
    rewriter: oneOf(['deterministic', 'llm', 'none', 'fallback']),
    hits: array(ref('RecallHit')),
  }),
  MemoryPolicyResult: obj({ sessionId: str(), policy: oneOf(['persistent', 'none']), removedItems: int('Items removed from the index (policy none).') }, [
    'sessionId',
  ]),
  MemoryStatus: {
    type: 'object',
    description:
      "`enabled: false` when REWIND_MEMORY=off; otherwise the indexer and the index. Positions, lag, counts and lastError are the whole deployment's: only an `operator` key sees them; a tenant's key gets enabled, index, state, runsIn, model, dimensions and models (without items).",
    properties: {
      enabled: bool(),
      index: str({ example: 'sqlite' }),
      state: oneOf(['idle', 'running', 'stopping', 'stopped']),
      runsIn: oneOf(['thread', 'process'], 'Where embedding and index writes run: a worker thread (default) or the event loop.'),
      keywordsRunIn: oneOf(
        ['thread', 'process'],
        'Where items are made searchable by keywords (stage 1’s index writes): a worker thread at normal priority (default) or the event loop; with one stage, where embedding runs.',
      ),
      model: orNull(str({ description: 'The embedding model; with language routing (the default local models) the default one, `models` lists each.' })),
      dimensions: orNull(int()),
      models: array(
        obj(
          {
            id: str({ example: 'all-minilm-l6-v2-q' }),
            dimensions: int(),
            language: str({ example: 'en' }),
            items: int('Items this model holds (operator only).'),
            pendingVectors: int('Items of this model awaiting their vectors (two stages; operator only): a burst in one language shows in its model.'),
          },
          ['language', 'items', 'pendingVectors'],
        ),
        'The models in use: one, or with language routing one per language (Chinese texts: bge-small-zh-v15-q), each in tables of its own.',
      ),
      checkpoint: int(),
      lastPosition: int(),
      lag: int('Committed events not yet indexed (with two stages: not yet searchable by keywords).'),
      stages: int('2: items are searchable by keywords first and embedded after (SQLite); 1: embedded before they count as indexed (Qdrant).'),
      pendingVectors: int('Items searchable by keywords but not yet embedded (stage 2; 0 with one stage): under a burst this grows, and catches up after.'),
      oldestPendingVectorPosition: orNull(int('Global position of the oldest item awaiting its vector (null when none).')),
      vectorsPerSecond: int("Stage 2's drain rate: items this process embedded per second over the last minute, rounded (newest first)."),
      admittedPerSecond: int("Stage 2's inflow: items this process made searchable by keywords per second over the last minute, rounded."),
      pendingVectorsDrainSeconds: orNull(
        int('Seconds until every pending item has its vector at these rates; null when none is pending or the backlog is not shrinking.'),
      ),
      indexedItems: int(),
      embeddedItems: int('Items this process embedded since it started.'),
      skippedEvents: int(),
      items: int(),
      lastError: orNull(str()),
    },
    required: ['enabled'],
  },
};
