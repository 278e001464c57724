import { ERROR_CODES } from '@rewind/contracts';
import { COMPENSATION_CHANNELS, EFFECT_KINDS, HEAD_MOVE_KINDS } from '@rewind/domain';
import { API_KEY_SCOPES } from '@rewind/tenancy';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const array = (items: JsonSchema, description?: string): JsonSchema => ({ type: 'array', items, ...(description ? { description } : {}) });
const oneOf = (values: readonly string[], description?: string): JsonSchema => ({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
/** A discriminator's value in one member of a union: a one-value enum, which every generator reads (some ignore `const`). */
const tag = (value: string): JsonSchema => ({ type: 'string', enum: [value] });
/** A union generated clients can read: `propertyName` names the member, through an explicit mapping. */
export function taggedUnion(propertyName: string, mapping: Record<string, string>): JsonSchema {
  return {
    oneOf: [...new Set(Object.values(mapping))].map(ref),
    discriminator: { propertyName, mapping: Object.fromEntries(Object.entries(mapping).map(([value, name]) => [value, `#/components/schemas/${name}`])) },
  };
}
/** `schema` or null (OpenAPI 3.1 has no `nullable`). */
export function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string')
    return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
  return { anyOf: [schema, { type: 'null' }] };
}
/** An object whose listed properties are all required unless named in `optional`; more properties may come in later versions. */
function obj(properties: Record<string, JsonSchema>, optional: string[] = [], description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
  };
}

const SESSION_STATUS = oneOf(['active', 'rolling_back', 'needs_attention'], 'needs_attention: a compensation failed; an operator retries or resolves it.');
const COMPENSATION_STATUS = ['pending', 'compensated', 'skipped', 'failed', 'resolved'] as const;
const ANY_JSON = ref('JsonValue');
const JSON_OBJECT: JsonSchema = { type: 'object', additionalProperties: ANY_JSON };

const WRITE_RESULT: JsonSchema = {
  ...obj(
    {
      sessionId: str({ example: 'trip-42' }),
      version: int('Stream version after the write: what If-Match and ETag compare. Not always a timeline node (see head).'),
      head: int('The timeline node whose state is current after the write: the version to read, roll back or return to.'),
      stepVersion: orNull(int('The last timeline node this write recorded; null when it recorded none (a checkpoint, a head move).')),
      status: SESSION_STATUS,
      duplicate: bool('True when this answers a retry of an idempotent request (same Idempotency-Key): nothing new was written.'),
      events: array(ref('WrittenEvent'), 'Every event appended up to `version`, oldest first.'),
      rollbackId: str({ description: 'Set when the write started a rollback: follow GET /v1/rollbacks/{rollbackId}.' }),
    },
    ['rollbackId'],
  ),
  example: {
    sessionId: 'trip-42',
    version: 3,
    head: 2,
    stepVersion: null,
    status: 'active',
    duplicate: false,
    events: [{ eventId: '0b0c8f0e-1f8a-4a53-9b8c-3f2d6c1a9e10', type: 'CheckpointCreated', streamVersion: 3, parentVersion: null, step: false }],
  },
};

/** Response and shared schemas the DTO decorators cannot express (unions, any JSON, nullable references). */
export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = {
  JsonValue: {
    description: 'Any JSON value: object, array, string, number, boolean or null.',
    examples: ['Lisbon', { city: 'Lisbon', nights: 3 }, [1, 2], null],
  },
  ErrorDetail: {
    type: 'object',
    description: 'One thing wrong with the request: the field (dotted path, header or parameter name) and what is wrong; more keys may add context.',
    properties: { field: str({ example: 'steps.1.content' }), message: str({ example: 'must be a string' }) },
    required: ['message'],
    additionalProperties: true,
  },
  ErrorResponse: {
    type: 'object',
    description: 'Every refusal: what happened, why, and what to do. Nothing was persisted.',
    properties: {
      error: obj({
        code: oneOf(ERROR_CODES, 'Stable, machine-readable: switch on it. New codes may be added in later versions.'),
        message: str({ description: 'For people: what happened and what to do.', example: 'No such session for this tenant.' }),
        details: array(ref('ErrorDetail')),
      }),
    },
    required: ['error'],
    example: { error: { code: 'validation_failed', message: 'content must be a string', details: [{ field: 'content', message: 'must be a string' }] } },
  },
  WrittenEvent: obj({
    eventId: str({ format: 'uuid' }),
    type: str({ example: 'UserMessageReceived' }),
    streamVersion: int(),
    parentVersion: orNull(int('The timeline node before this one (step events); null for records about the timeline.')),
    step: bool(
      'True when this event is a timeline node: a step one can read (state?at=), roll back, undo or return to. Checkpoints, rollback records and compensation outcomes are not.',
    ),
  }),
  WriteResult: WRITE_RESULT,
  RetryPolicy: obj({ maxAttempts: int(), baseDelayMs: int(), maxDelayMs: int(), timeoutMs: int() }),
  Compensation: obj(
    {
      channel: oneOf(COMPENSATION_CHANNELS),
      target: str({ description: 'http: URL template; kafka: request topic; inline: handler name.' }),
      payload: JSON_OBJECT,
      replyTopic: str(),
    },
    ['payload', 'replyTopic'],
  ),
  Effect: obj({ kind: oneOf(EFFECT_KINDS), compensation: ref('Compensation'), retry: ref('RetryPolicy'), approval: oneOf(['required']) }, [
    'compensation',
    'retry',
    'approval',
  ]),
  PlannedEffect: obj({
    toolCallId: str(),
    tool: str(),
    startedVersion: int(),
    effect: ref('Effect'),
    callStatus: oneOf(['started', 'succeeded', 'failed']),
    action: oneOf(['compensate', 'skip']),
    reason: orNull(str()),
  }),
  HeadMovePlan: obj({
    kind: oneOf(HEAD_MOVE_KINDS),
    fromVersion: int(),
    toVersion: int(),
    commonAncestor: int(),
    effects: array(ref('PlannedEffect'), 'Effects on the abandoned path, newest first.'),
    toCompensate: array(ref('PlannedEffect')),
    irreversible: array(ref('PlannedEffect'), 'Rolled back past only with acknowledgeIrreversible; recorded as skipped.'),
    compensatedOnTheWay: array(obj({ toolCallId: str(), tool: str(), startedVersion: int() }), 'Already compensated effects on the way: they block the move.'),
  }),
  DryRun: obj(
    {
      outcome: tag('dry_run'),
      // Not a boolean `const`: python generators read it as the string "true"; `outcome` tells the answers apart.
      dryRun: bool('Always true for a dry run.'),
      plan: ref('HeadMovePlan'),
    },
    [],
    'What the move would do; nothing changed. `outcome` tells it from an applied move.',
  ),
  RollbackEffect: obj({
    toolCallId: str(),
    tool: str(),
    startedVersion: int(),
    effect: oneOf(EFFECT_KINDS),
    channel: orNull(oneOf(COMPENSATION_CHANNELS)),
    action: oneOf(['compensate', 'skip']),
    reason: orNull(str()),
    status: oneOf(COMPENSATION_STATUS),
    attempts: int(),
    detail: { ...ANY_JSON, description: "The compensator's answer, the last error, or the reason for a skip (any JSON; null when none)." },
  }),
  Rollback: obj({
    rollbackId: str(),
    sessionId: str(),
    kind: oneOf(HEAD_MOVE_KINDS),
    status: oneOf(['in_progress', 'needs_attention', 'completed']),
    fromVersion: int(),
    toVersion: int('The timeline node the rollback makes current.'),
    requestedBy: str(),
    requestedVersion: int(),
    completedVersion: orNull(int()),
    acknowledgeIrreversible: bool(),
    effects: array(ref('RollbackEffect'), 'The plan, newest first, with each outcome so far.'),
  }),
  HeadMoveResult: obj(
    {
      outcome: tag('applied'),
      dryRun: bool('Always false for a move (a dry run answers true).'),
      ...((WRITE_RESULT.properties ?? {}) as Record<string, JsonSchema>),
      rollback: { ...orNull(ref('Rollback')), description: 'Present when the move needed compensations: the saga as it stands when the answer was sent.' },
    },
    ['rollbackId', 'rollback'],
    'The head moved (200), or a rollback that needs compensations started (202: follow Location). `outcome` tells it from a dry run.',
  ),
  HeadMoveAnswer: {
    description: 'An applied move (outcome: applied) or the plan of a dry run (outcome: dry_run).',
    ...taggedUnion('outcome', { applied: 'HeadMoveResult', dry_run: 'DryRun' }),
  },
  Message: obj({ messageId: str(), role: oneOf(['user', 'agent']), content: str(), version: int(), partial: bool() }),
  Turn: obj({ turnId: str(), status: oneOf(['open', 'complete', 'interrupted']), startedVersion: int(), messages: array(ref('Message')) }),
  Task: obj({ taskId: str(), title: str(), data: ANY_JSON, version: int() }),
  Thought: obj({
    thoughtId: str(),
    turnId: orNull(str()),
    content: str(),
    steps: array(str(), 'The reasoning as separate steps (empty when only content was given).'),
    version: int(),
  }),
  Checkpoint: obj({ label: str(), version: int('The timeline node it labels.'), createdVersion: int('The stream version of the CheckpointCreated record.') }),
  ToolCall: obj({
    toolCallId: str(),
    tool: str(),
    input: ANY_JSON,
    effect: ref('Effect'),
    confirmed: bool(),
    turnId: orNull(str()),
    status: oneOf(['started', 'succeeded', 'failed']),
    output: ANY_JSON,
    error: orNull(str()),
    retryable: orNull(bool()),
    attempts: int(),
    startedVersion: int(),
    finishedVersion: orNull(int()),
    compensation: orNull(oneOf(COMPENSATION_STATUS)),
  }),
  Proposal: obj({
    toolCallId: str(),
    tool: str(),
    input: ANY_JSON,
    effect: ref('Effect'),
    turnId: orNull(str()),
    status: oneOf(['pending', 'approved', 'rejected']),
    proposedBy: str(),
    proposedAt: str({ format: 'date-time' }),
    proposedVersion: int(),
    decidedBy: orNull(str()),
    decidedAt: orNull(str({ format: 'date-time' })),
    decidedVersion: orNull(int()),
    note: orNull(str({ description: "The approver's note or the rejection's reason." })),
  }),
  SessionState: obj(
    {
      sessionId: str({ example: 'trip-42' }),
      title: orNull(str()),
      metadata: JSON_OBJECT,
      startedAt: orNull(str({ format: 'date-time' })),
      version: int('Stream version (events recorded on every branch).'),
      head: int('The timeline node whose state this is.'),
      status: SESSION_STATUS,
      activeRollbackId: orNull(str()),
      canRedo: bool(),
      conversation: obj({ turns: array(ref('Turn')) }),
      memory: JSON_OBJECT,
      contextVars: JSON_OBJECT,
      tasks: array(ref('Task')),
      toolCalls: array(ref('ToolCall')),
      thoughts: array(ref('Thought'), "The agent's recorded reasoning on the head's path (never in GET …/context unless asked for)."),
      proposals: array(ref('Proposal'), 'Tool calls proposed for approval on the head path: pending ones wait for a person.'),
      checkpoints: array(ref('Checkpoint')),
      window: obj(
        {
          lastTurns: int('The N of turns=last:N.'),
          totalTurns: int('Turns on the path; conversation.turns holds the last lastTurns of them.'),
          totalToolCalls: int('Tool calls on the path; toolCalls holds those started since fromVersion.'),
          fromVersion: int('The stream version the window starts at: the first kept turn’s, or 1 when every turn is kept.'),
        },
        [],
        'Present when turns=last:N was asked for: what the answer holds of the whole.',
      ),
    },
    ['window'],
  ),
  TimelineNode: obj({
    version: int(),
    parentVersion: orNull(int()),
    children: array(int()),
    type: str({ example: 'ToolCallSucceeded' }),
    occurredAt: orNull(str({ format: 'date-time' })),
    summary: orNull(str()),
  }),
  Timeline: obj(
    {
      sessionId: str(),
      version: int(),
      head: int(),
      status: SESSION_STATUS,
      parents: array(int(), 'With paging: the whole DAG, parents[v-1] = parent of v (0: root, -1: not a node).'),
      page: obj({ from: int(), to: int() }),
      nodes: array(ref('TimelineNode')),
      branches: array(
        obj({
          tip: int(),
          forkedFrom: orNull(int()),
          length: int(),
          containsHead: bool(),
          name: orNull(str({ description: 'The nearest branch name on its path (POST …/fork, …/branch-names).' })),
        }),
      ),
      checkpoints: array(ref('Checkpoint')),
      rollbacks: array(
        obj({
          rollbackId: str(),
          kind: oneOf(HEAD_MOVE_KINDS),
          fromVersion: int(),
          toVersion: int(),
          effects: int('How many effects the plan holds.'),
          acknowledgeIrreversible: bool(),
          requestedBy: str(),
          requestedVersion: int(),
          status: oneOf(['in_progress', 'needs_attention', 'completed']),
          completedVersion: orNull(int()),
        }),
      ),
    },
    ['parents', 'page'],
  ),
  Event: obj(
    {
      eventId: str({ format: 'uuid' }),
      type: str(),
      data: ANY_JSON,
      parentVersion: orNull(int()),
      streamId: str(),
      streamVersion: int(),
      globalPosition: {
        ...int(),
        deprecated: true,
        description: 'No longer sent: a position in the whole log tells how much every tenant writes. Order events by streamVersion.',
      },
      metadata: {
        type: 'object',
        properties: {
          tenantId: str(),
          sessionId: str(),
          commandId: str(),
          causationId: orNull(str()),
          correlationId: str(),
          actor: str(),
          occurredAt: str({ format: 'date-time' }),
          schemaVersion: int(),
          traceparent: str({
            pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
            description: 'W3C traceparent of the write that recorded the event, kept when its trace was sampled (absent otherwise).',
          }),
        },
        required: ['tenantId', 'sessionId', 'commandId', 'actor', 'occurredAt'],
      },
    },
    ['streamId', 'globalPosition'],
  ),
  EventPage: obj({ sessionId: str(), events: array(ref('Event')), nextFrom: orNull(int('Pass as from for the next page; null on the last.')) }),
  Diff: obj({
    sessionId: str(),
    from: int(),
    to: int(),
    changes: array(obj({ path: str({ example: 'memory.city' }), op: oneOf(['added', 'removed', 'changed']), from: ANY_JSON, to: ANY_JSON }, ['from', 'to'])),
  }),
  ContextMessage: obj({ kind: tag('message'), role: oneOf(['user', 'agent']), content: str(), turnId: str(), version: int(), interrupted: bool() }),
  ContextToolResult: obj({
    kind: tag('tool_result'),
    toolCallId: str(),
    tool: str(),
    input: ANY_JSON,
    output: ANY_JSON,
    error: orNull(str()),
    turnId: orNull(str()),
    version: int(),
  }),
  ContextThought: obj({ kind: tag('thought'), content: str(), steps: array(str()), turnId: orNull(str()), version: int() }),
  ContextItem: {
    description: 'A message, a finished tool call, or (with includeThoughts=true) a thought, by `kind`.',
    ...taggedUnion('kind', { message: 'ContextMessage', tool_result: 'ContextToolResult', thought: 'ContextThought' }),
  },
  Context: obj(
    {
      sessionId: str(),
      head: int(),
      items: array(ref('ContextItem')),
      omitted: int('Items left out to fit the budget.'),
      strippedToolCalls: array(str(), 'Tool calls left out because they never finished.'),
      recalled: { ...ref('Recall'), description: 'With ?recall=<question>: what long-term memory recalls for it.' },
    },
    ['recalled'],
  ),
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
      model: orNull(str({ description: 'The embedding model; with language routing (the default local models) the default one, `models` lists each.' })),
      dimensions: orNull(int()),
      models: array(
        obj(
          {
            id: str({ example: 'all-minilm-l6-v2-q' }),
            dimensions: int(),
            language: str({ example: 'en' }),
            items: int('Items this model embedded (operator only).'),
          },
          ['language', 'items'],
        ),
        'The models in use: one, or with language routing one per language (Chinese texts: bge-small-zh-v15-q), each in tables of its own.',
      ),
      checkpoint: int(),
      lastPosition: int(),
      lag: int('Committed events not yet indexed (with two stages: not yet searchable by keywords).'),
      stages: int('2: items are searchable by keywords first and embedded after (SQLite); 1: embedded before they count as indexed (Qdrant).'),
      pendingVectors: int('Items searchable by keywords but not yet embedded (stage 2; 0 with one stage): under a burst this grows, and catches up after.'),
      oldestPendingVectorPosition: orNull(int('Global position of the oldest item awaiting its vector (null when none).')),
      indexedItems: int(),
      embeddedItems: int('Items this process embedded since it started.'),
      skippedEvents: int(),
      items: int(),
      lastError: orNull(str()),
    },
    required: ['enabled'],
  },
  Tool: obj({ name: str({ example: 'book_hotel' }), effect: ref('Effect'), version: int(), registeredAt: str({ format: 'date-time' }), registeredBy: str() }),
  ToolList: obj({ items: array(ref('Tool')) }),
  Health: obj({ status: tag('ok'), store: obj({ reachable: bool('The event store answered.') }) }),
  Liveness: obj({ status: tag('ok') }),
  Readiness: obj({
    status: tag('ready'),
    checks: array(obj({ name: str({ example: 'store' }), ok: bool(), detail: str() }), 'Each check and what it found.'),
  }),
  ComponentState: obj({ name: str({ example: 'itinerary' }), value: ANY_JSON, version: int('The session version the state was read at.') }),
  ShredResult: obj(
    {
      sessionId: str(),
      keysDestroyed: int('Data keys destroyed (0 when the session had none, or on a repeated shred).'),
      unreadableValues: int('Encrypted values in the session\'s events: all read "[shredded]" from now on.'),
      unreadableFields: array(
        obj({
          event: str({ example: 'MemoryWritten' }),
          path: str({ example: 'value', description: "Dotted path into the event's data; `[]` stands for any element of an array." }),
          values: int(),
        }),
        'Where those values are, by event type and path.',
      ),
      nothingEncrypted: bool('True when no value was encrypted: the shred erased nothing readable, every field reads as before.'),
      message: str({ description: 'The same in one sentence.' }),
    },
    [],
    'What the shred destroyed and what it made unreadable. Crypto-shredding makes only encrypted fields unreadable: `nothingEncrypted` says so plainly when there were none.',
  ),
  ApiKey: obj(
    {
      keyId: str(),
      tenantId: str(),
      name: str(),
      scopes: array(oneOf(API_KEY_SCOPES)),
      createdAt: str({ format: 'date-time' }),
      expiresAt: orNull(str({ format: 'date-time', description: 'After this instant the key is refused; null: never.' })),
      revokedAt: orNull(str({ format: 'date-time' })),
      rotatedAt: orNull(str({ format: 'date-time' })),
      previousSecretValidUntil: orNull(str({ format: 'date-time', description: 'Until when the secret before the last rotation still works.' })),
    },
    [],
    'An API key without its secret.',
  ),
  ApiKeySecret: obj(
    { key: str({ description: 'The secret: send it as "Authorization: Bearer <key>". Shown in this answer only.', example: 'rwd_…' }), record: ref('ApiKey') },
    [],
    'A new secret and the key it belongs to.',
  ),
  ApiKeyList: obj({ items: array(ref('ApiKey')) }),
  SigningKey: obj(
    {
      keyId: str(),
      tenantId: str({ description: 'The one tenant whose commands the key may sign.' }),
      name: str(),
      createdAt: str({ format: 'date-time' }),
      revokedAt: orNull(str({ format: 'date-time' })),
      expiresAt: orNull(str({ format: 'date-time', description: 'After this instant commands signed with the key are refused; null: never.' })),
      previousSecretValidUntil: orNull(str({ format: 'date-time', description: 'Until when the secret before the last rotation still verifies.' })),
    },
    [],
    'A Kafka signing key without its secret.',
  ),
  SigningKeySecret: obj(
    {
      secret: str({ description: 'HMAC-SHA256 secret: sign each command value with it (docs/asyncapi.yaml). Shown in this answer only.' }),
      record: ref('SigningKey'),
    },
    [],
    'A new signing secret and the key it belongs to.',
  ),
  SigningKeyList: obj({ items: array(ref('SigningKey')) }),
  EncryptionPolicies: obj({
    tools: {
      type: 'object',
      description: 'By tool name: the dotted paths of its input and output that are encrypted.',
      additionalProperties: obj({ input: array(str()), output: array(str()) }),
    },
    memoryKeys: array(str(), 'Memory keys whose values are encrypted.'),
  }),
  ToolEncryption: obj({ tool: str(), input: array(str()), output: array(str()) }),
  MemoryKeyEncryption: obj({ key: str(), encrypted: bool() }),
  AuditVerification: obj({
    ok: bool(),
    checked: int('Events whose links were recomputed and matched (up to the first broken one).'),
    unsealed: int(
      'Events not covered yet: on SQLite and PostgreSQL only events written before the upgrade to links and not sealed yet (the API seals them when it starts); on EventStoreDB, events newer than the last seal (the sealer runs every second).',
    ),
    firstBroken: orNull(
      obj(
        {
          streamId: str(),
          streamVersion: orNull(int()),
          position: {
            ...orNull(int()),
            deprecated: true,
            description:
              "No longer sent: a position in the whole log tells how much every tenant writes. The stream and version name the event; an operator's `rewind audit verify` prints the position.",
          },
          problem: str(),
        },
        ['position'],
      ),
    ),
    digestMatches: orNull(bool('With expectedDigest: whether the sealed log still yields it.')),
    snapshotsChecked: int("Snapshots checked against their seals (a snapshot's seal binds its content to the link of the event at its version)."),
    snapshotsRejected: array(
      obj({ streamId: str(), version: int(), problem: str() }),
      'Snapshots whose seal does not hold: altered in the database. They are not served (reads replay the events); ok is false.',
    ),
    sessions: int('Sessions checked.'),
  }),
};
