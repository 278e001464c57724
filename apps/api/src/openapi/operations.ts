import { ref, type JsonSchema } from './response-schemas';

/** Response headers every client may read. */
export type ResponseHeader = 'ETag' | 'Location' | 'Retry-After';

export interface SuccessDoc {
  /** The status Nest answers with when omitted (201 for POST, else 200). */
  status?: number;
  description: string;
  /** A JSON body's schema, 'text' for text/plain, or 'event-stream' for server-sent events. */
  schema: JsonSchema | 'text' | 'event-stream';
  headers?: ResponseHeader[];
}

export interface OperationDoc {
  /** What the operation does, for people reading the reference (the summary is the decorator's). */
  description: string;
  success: SuccessDoc[];
  /** Documented refusals, each in the error shape. */
  errors: number[];
  /** Takes Idempotency-Key, If-Match and X-Correlation-Id. */
  write?: boolean;
  /** Parameters no DTO declares (e.g. one an interceptor reads). */
  parameters?: JsonSchema[];
}

/** What each refusal status means across the API; each operation lists the ones it can answer. */
export const ERROR_STATUSES: Record<number, string> = {
  400: 'The request is invalid: details[] names each field, header or parameter and what is wrong (validation_failed, invalid_json, ...).',
  401: 'No API key, or not a valid one: unknown, revoked or expired (unauthorized).',
  403: "The key lacks the route's scope (insufficient_scope): admin, write, read or audit.",
  404: "Not found for this tenant: another tenant's session, rollback or tool is a 404 too (session_not_found, version_not_found, ...).",
  409: 'Conflict: memory_disabled (REWIND_MEMORY=off), version_conflict (If-Match is stale; details name the current version), idempotency_key_reused, session_exists, rollback_in_progress, compensated_effects_on_path, ...',
  413: 'The body is larger than the limit (payload_too_large).',
  415: 'The body is not JSON (unsupported_media_type).',
  429: 'The key made more requests than its rate allows (rate_limited): retry after Retry-After seconds.',
  428: 'An irreversible effect needs confirmed: true, or acknowledgeIrreversible: true to roll back past it (confirmation_required).',
  503: 'The store (store_unavailable) or long-term memory (memory_unavailable: its model or its index) cannot be reached: nothing was acknowledged. Retry after Retry-After seconds with the same Idempotency-Key.',
};

const READ = [400, 401, 503];
const SESSION_READ = [400, 401, 404, 503];
const SESSION_WRITE = [400, 401, 404, 409, 413, 415, 503];

const written = (description: string, status?: number): SuccessDoc => ({
  ...(status ? { status } : {}),
  description,
  schema: ref('WriteResult'),
  headers: ['ETag'],
});
const STEP_DESCRIPTION =
  'A step of the session: one event on the timeline, which state?at=, undo and rollback can return to. The answer gives the new version (ETag) and the events written.';
const step = (summary: string, description: string, errors = SESSION_WRITE): OperationDoc => ({
  description: `${description} ${STEP_DESCRIPTION}`,
  success: [written(summary)],
  errors,
  write: true,
});
const headMove = (description: string): OperationDoc => ({
  description: `${description} With dryRun: true the answer is the plan and nothing changes; \`outcome\` (dry_run or applied) tells the two answers apart.`,
  success: [
    {
      status: 200,
      description: 'Done (the head moved; a rollback that needed compensations finished within waitMs), or the plan of a dry run.',
      schema: ref('HeadMoveAnswer'),
      headers: ['ETag'],
    },
    {
      status: 202,
      description: 'A rollback started and is not finished (running, or needing attention): follow Location.',
      schema: ref('HeadMoveResult'),
      headers: ['ETag', 'Location'],
    },
  ],
  errors: [...SESSION_WRITE, 428],
  write: true,
});

/** Every operation's answers, by operationId (set on each controller method). */
export const OPERATIONS: Record<string, OperationDoc> = {
  getHealth: {
    description:
      "Answers 200 while the process runs and the event store answers; 503 when the store cannot be reached. (The log's position is not told here: it counts every tenant's writes; the operator reads it in GET /v1/projections.)",
    success: [{ description: 'Alive; the store answers.', schema: ref('Health') }],
    errors: [503],
  },
  getLiveness: {
    description: 'For a liveness probe: answers without touching the store, so a slow database never restarts the process.',
    success: [{ description: 'The process answers (no I/O).', schema: ref('Liveness') }],
    errors: [],
  },
  getReadiness: {
    description: 'For a readiness probe: every check (store, migrations, subscribers) must pass; a 503 names the failing ones in details.',
    success: [{ description: 'Ready: every check passed (each listed).', schema: ref('Readiness') }],
    errors: [503],
  },
  getMetrics: {
    description: 'Prometheus text exposition of the process and API metrics; holds no tenant data.',
    success: [{ description: 'Prometheus text format.', schema: 'text' }],
    errors: [],
  },

  startSession: {
    description: 'Creates a session stream (its first event). With an id of your own, a second start answers 409 session_exists; without one, an id is made.',
    success: [{ status: 201, description: 'The session started.', schema: ref('WriteResult'), headers: ['Location', 'ETag'] }],
    errors: [400, 401, 409, 413, 415, 503],
    write: true,
  },
  listSessions: {
    description: "One page of the tenant's sessions from the sessions read model, filtered and sorted; pass nextCursor as cursor for the next page.",
    success: [{ description: 'One page of sessions.', schema: ref('SessionPageDto') }],
    errors: READ,
  },
  getSession: {
    description:
      'The state at the head: conversation, memory, context variables, tasks, tool calls and checkpoints. The ETag is the stream version to send as If-Match.',
    success: [{ description: 'The current state (the head).', schema: ref('SessionState'), headers: ['ETag'] }],
    errors: SESSION_READ,
  },
  getSessionState: {
    description: 'The state as it was at any version of the stream, on any branch, rebuilt from the events; turns=last:N keeps the answer small.',
    success: [{ description: 'The state at that version (windowed with turns=last:N).', schema: ref('SessionState') }],
    errors: SESSION_READ,
  },
  getTimeline: {
    description: 'Every timeline node with its parent and children, the head, the branches, the checkpoints and the rollbacks; from and limit page the nodes.',
    success: [{ description: 'The timeline DAG.', schema: ref('Timeline') }],
    errors: SESSION_READ,
  },
  streamSession: {
    description:
      "Server-sent events for one session: a change event per commit (version, position, type, time; never the event's data); Last-Event-ID resumes after a reconnection.",
    success: [{ description: "The session's changes as server-sent events; each id is the event's session version.", schema: 'event-stream' }],
    errors: SESSION_READ,
  },
  streamTenant: {
    description: "Server-sent events for the tenant's sessions list: a change event per commit in any of the tenant's sessions; Last-Event-ID resumes.",
    success: [
      {
        description:
          "The tenant's changes as server-sent events; each id is `<session id>:<version>` (never a position in the whole log, which would tell other tenants' volume).",
        schema: 'event-stream',
      },
    ],
    errors: READ,
  },
  listEvents: {
    description: 'The recorded events as they are stored, oldest first, for audit and replay; nextFrom gives the next page.',
    success: [{ description: 'One page of events, in stream order.', schema: ref('EventPage') }],
    errors: SESSION_READ,
  },
  getDiff: {
    description:
      'The changes between the states at two versions (on any branches): `items` one thing at a time in words (every message, thought, proposal, decision, tool call and answer, memory key, context variable, task, checkpoint), `changes` path by path.',
    success: [{ description: 'The changes, in words and field by field.', schema: ref('Diff') }],
    errors: SESSION_READ,
  },
  getContext: {
    description:
      'What an LLM should see: only the head path (rolled-back steps are gone), interrupted turns as the user saw them, unfinished tool calls left out, windowed to maxTurns and maxChars. Thoughts only with includeThoughts=true.',
    success: [{ description: 'What an LLM should see.', schema: ref('Context') }],
    errors: [...SESSION_READ, 409],
    parameters: [
      {
        name: 'recall',
        in: 'query',
        required: false,
        description: 'A question: adds `recalled`, what long-term memory finds for it (409 memory_disabled when memory is off).',
        schema: { type: 'string', minLength: 1, maxLength: 2000 },
      },
    ],
  },

  recordSteps: step('The steps were recorded.', 'Records a batch of steps in order, all or none.', [...SESSION_WRITE, 428]),
  recordMessage: step('The message was recorded.', 'Records a user or agent message, in a turn of its own or the one named by turnId.'),
  startToolCall: step(
    'The call was recorded as started.',
    'Records that a tool call starts, with its effect declared before it runs (or taken from the registered tool); an irreversible one needs confirmed: true (428). A proposed call starts only once approved, as approved (409 approval_required, proposal_mismatch); a tool registered with approval: "required" refuses its compensable and irreversible calls that were not (409 approval_required).',
    [...SESSION_WRITE, 428],
  ),
  proposeToolCall: step(
    'The proposal was recorded: it waits for a decision.',
    "Records a tool call put to a person instead of started (a step; nothing runs, and a rollback has nothing to compensate for it). It shows in the state's proposals and the UI's queue until approved or rejected.",
  ),
  approveToolCall: step(
    'The approval was recorded, with who (the key) and when.',
    'Approves a pending proposal: the agent may start the call (POST …/tool-calls with the same toolCallId, tool and input; the approval stands for confirmed). 404 proposal_not_found, 409 proposal_not_pending.',
  ),
  rejectToolCall: step(
    'The rejection was recorded, with who, when and why.',
    'Rejects a pending proposal: starting the call is refused from then on (409 approval_required). 404 proposal_not_found, 409 proposal_not_pending.',
  ),
  succeedToolCall: step('The result was recorded.', "Records a started tool call's output."),
  failToolCall: step('The failure was recorded.', "Records a started tool call's failure and whether a retry may help."),
  writeMemory: step('The memory entry was written.', 'Sets a working-memory entry of the session to any JSON value.'),
  eraseMemory: step('The memory entry was erased.', 'Removes a working-memory entry; the history keeps its old values.'),
  setContextVariable: step('The variable was set.', 'Sets a context variable of the session to any JSON value.'),
  pushTask: step('The task was pushed.', 'Pushes a task onto the session’s task stack.'),
  popTask: step('The top task was popped.', 'Pops the top task of the session’s task stack (409 task_stack_empty when there is none).'),
  interruptTurn: step('The interrupt was recorded.', 'The user stopped an answer: records the text they saw, so the context keeps exactly that.'),
  recordThought: step(
    'The thought was recorded.',
    "Records the agent's reasoning (text and optional steps) as a timeline step. It changes nothing the agent knows and is never part of GET …/context unless includeThoughts=true.",
  ),
  nameBranch: step(
    'The name was recorded (version is the record; head is unchanged).',
    'Names a branch by one of its steps: GET …/timeline gives each branch the nearest name on its path. A record about the timeline, not a step.',
  ),
  createCheckpoint: step(
    'The head was labelled (version is the record; head is the labelled node).',
    'Labels the head so that a rollback can name it (toCheckpoint); a record about the timeline, not a step itself.',
  ),

  rollback: headMove('Makes any earlier step current, on any branch; effects on the abandoned path are compensated newest first (the saga).'),
  undo: headMove('Moves the head back to the previous step boundary, or `steps` of them; effects undone are compensated like a rollback.'),
  fork: headMove(
    'Fork from the past (seed 002 §4.2): a rollback to atVersion whose steps (messages, memory, context variables, tasks, thoughts) start a new branch there as soon as the head lands, in the same write, or in the write that completes the compensations. Nothing can come in between; the steps are checked on the target before anything moves.',
  ),
  redo: headMove('Moves the head forward again to where the last undo or rollback came from; 409 when a compensated effect lies on the way.'),

  getRollback: {
    description: 'A rollback as it stands: its plan, newest effect first, with each compensation’s status, attempts and answer.',
    success: [{ description: 'The plan and each outcome, live.', schema: ref('Rollback') }],
    errors: SESSION_READ,
  },
  retryCompensation: {
    description: 'Runs a failed compensation again (recorded as an event); poll the rollback for its outcome.',
    success: [{ status: 202, description: 'The retry is under way: poll the rollback.', schema: ref('Rollback') }],
    errors: SESSION_WRITE,
    write: true,
  },
  resolveCompensation: {
    description: 'Marks a failed compensation as done by hand, with who did it and a note; the rollback completes when none is left.',
    success: [{ description: 'Resolved by hand (recorded).', schema: ref('Rollback') }],
    errors: SESSION_WRITE,
    write: true,
  },

  registerTool: {
    description: 'Registers a tool once (its effect kind, compensation channel and template, retry policy) so that its calls need not repeat it.',
    success: [{ description: 'The tool as registered now.', schema: ref('Tool') }],
    errors: [400, 401, 409, 413, 415, 503],
    write: true,
  },
  listTools: {
    description: "Every tool registered for the caller's tenant.",
    success: [{ description: "The tenant's tools.", schema: ref('ToolList') }],
    errors: READ,
  },
  getTool: {
    description: 'One registered tool, with its effect and version.',
    success: [{ description: 'The tool.', schema: ref('Tool') }],
    errors: SESSION_READ,
  },

  recallMemory: {
    description:
      'Searches long-term memory for a question: hybrid search on the current path only (what was rolled back is never recalled), with query rewriting.',
    success: [{ description: 'What memory recalls, branch-aware.', schema: ref('Recall') }],
    errors: [...SESSION_READ, 409, 413, 415],
  },
  setSessionMemoryPolicy: {
    description: 'Whether this session is indexed into long-term memory; none also removes what was indexed.',
    success: [{ description: "The session's policy now.", schema: ref('MemoryPolicyResult') }],
    errors: [400, 401, 404, 409, 413, 415, 503],
  },
  setTenantMemoryPolicy: {
    description: "The default memory policy of the caller's tenant; a session's own policy wins.",
    success: [{ description: "The tenant's policy now.", schema: ref('MemoryPolicyResult') }],
    errors: [400, 401, 409, 413, 415, 503],
  },
  getMemoryStatus: {
    description: 'The memory indexer (model, state, checkpoint, lag) and the index (items).',
    success: [{ description: 'The indexer and the index.', schema: ref('MemoryStatus') }],
    errors: [401, 503],
  },

  getAuditLog: {
    description: 'Every event of the tenant in log order, with who did what and when, from the audit read model; filter by session, type and time.',
    success: [{ description: 'One page of the audit log.', schema: ref('AuditPageDto') }],
    errors: READ,
  },
  listToolCalls: {
    description: 'Every tool call of the tenant with its declared effect, outcome and what rollbacks did about it, from the tool-call read model.',
    success: [{ description: 'One page of the tool-call ledger.', schema: ref('ToolCallPageDto') }],
    errors: READ,
  },
  getProjectionStatus: {
    description: "Each read model's position in the event log, the log's head and the lag: operational data, no tenant's.",
    success: [{ description: "Each projection's position and lag.", schema: ref('ProjectionsDto') }],
    errors: [401, 503],
  },

  saveComponentState: step(
    "The component's state was recorded (a step of the session).",
    "Saves a UI or agent component's state as a step, so time travel and rollback restore it.",
  ),
  getComponentState: {
    description: "A component's saved state at the head, or at any version with at.",
    success: [{ description: "The component's state at the head (or at `at`).", schema: ref('ComponentState') }],
    errors: SESSION_READ,
  },
  shredSession: {
    description:
      'Destroys the session\'s data keys (crypto-shredding): its encrypted fields read "[shredded]" in every answer from now on; the events stay. Only encrypted fields become unreadable: the answer lists them, and says plainly (`nothingEncrypted`) when there were none, so that nothing readable was erased.',
    success: [
      {
        status: 200,
        description: 'The session\'s data key is destroyed: the encrypted fields listed read "[shredded]" from now on (none, when `nothingEncrypted`).',
        schema: ref('ShredResult'),
      },
    ],
    errors: SESSION_WRITE,
  },

  createApiKey: {
    description: "Creates an API key for a tenant (the admin's own by default) with scopes and an optional expiry. Needs an admin key.",
    success: [{ status: 201, description: 'The key: its secret is in this answer only.', schema: ref('ApiKeySecret') }],
    errors: [400, 401, 413, 415, 503],
  },
  listApiKeys: {
    description: "The API keys of the admin's tenant (or another, or all with *): ids, scopes and lifecycle, never secrets. Needs an admin key.",
    success: [{ description: 'Ids, scopes and lifecycle; never secrets.', schema: ref('ApiKeyList') }],
    errors: READ,
  },
  revokeApiKey: {
    description: 'Revokes a key for good; every process refuses it within a second. Needs an admin key.',
    success: [{ status: 200, description: 'Revoked: refused by every process within a second.', schema: ref('ApiKey') }],
    errors: [400, 401, 404, 503],
  },
  rotateApiKey: {
    description: 'Gives the key a new secret (same id and scopes); the old secret keeps working for graceSeconds. Needs an admin key.',
    success: [{ status: 200, description: 'A new secret (same id); the old one works for the grace period.', schema: ref('ApiKeySecret') }],
    errors: [400, 401, 404, 409, 413, 415, 503],
  },
  setApiKeyExpiry: {
    description: 'Sets the instant after which the key is refused, or clears it (null). Needs an admin key.',
    success: [{ description: 'The key with its new expiry.', schema: ref('ApiKey') }],
    errors: [400, 401, 404, 409, 413, 415, 503],
  },

  createSigningKey: {
    description:
      "Creates a key that signs a tenant's Kafka command envelopes (rewind-key-id, rewind-signature); the worker verifies each command with it. Needs an admin key.",
    success: [{ status: 201, description: 'The key: its secret is in this answer only.', schema: ref('SigningKeySecret') }],
    errors: [400, 401, 413, 415, 503],
  },
  listSigningKeys: {
    description: "The Kafka signing keys of the admin's tenant (or another, or all with *): ids, tenants and lifecycle, never secrets. Needs an admin key.",
    success: [{ description: 'Ids, tenants and lifecycle; never secrets.', schema: ref('SigningKeyList') }],
    errors: READ,
  },
  revokeSigningKey: {
    description: 'Revokes a signing key at once: commands signed with it go to the DLQ as unauthenticated. Needs an admin key.',
    success: [{ status: 200, description: 'Revoked.', schema: ref('SigningKey') }],
    errors: [400, 401, 404, 503],
  },

  getEncryptionPolicies: {
    description: "Which fields the caller's tenant always encrypts: per tool (paths in input and output) and per memory key.",
    success: [{ description: "The tenant's encryption policies.", schema: ref('EncryptionPolicies') }],
    errors: [401, 503],
  },
  setToolEncryption: {
    description: "Declares the dotted paths of a tool's input and output that are encrypted at the edge from now on (both empty: none).",
    success: [{ description: "The tool's encrypted input and output paths.", schema: ref('ToolEncryption') }],
    errors: [400, 401, 413, 415, 503],
  },
  setMemoryKeyEncryption: {
    description: "Declares whether a memory key's values are encrypted at the edge from now on.",
    success: [{ description: "Whether the memory key's values are encrypted.", schema: ref('MemoryKeyEncryption') }],
    errors: [400, 401, 413, 415, 503],
  },

  verifyAuditChains: {
    description:
      "Recomputes the link of every event of the tenant's sessions (or one) in the log — each written with its event — and checks every snapshot's seal: ok, or the first broken link (an event altered, inserted, deleted or reordered) and the altered snapshots.",
    success: [{ description: 'The hash chains checked: the first broken link, if any.', schema: ref('AuditVerification') }],
    errors: SESSION_READ,
  },
};
