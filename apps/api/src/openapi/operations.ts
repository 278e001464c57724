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
  503: 'The store (store_unavailable) or the memory model (memory_unavailable) cannot be reached: nothing was acknowledged. Retry after Retry-After seconds with the same Idempotency-Key.',
};

const READ = [400, 401, 503];
/** Answers whose shape is documented by their route's description (admin and audit routes). */
const ANY_OBJECT: JsonSchema = { type: 'object' };
const SESSION_READ = [400, 401, 404, 503];
const SESSION_WRITE = [400, 401, 404, 409, 413, 415, 503];

const written = (description: string, status?: number): SuccessDoc => ({
  ...(status ? { status } : {}),
  description,
  schema: ref('WriteResult'),
  headers: ['ETag'],
});
const step = (description: string, errors = SESSION_WRITE): OperationDoc => ({ success: [written(description)], errors, write: true });
const headMove: OperationDoc = {
  success: [
    {
      status: 200,
      description: 'Done (the head moved; a rollback that needed compensations finished within waitMs), or the plan of a dry run.',
      schema: { oneOf: [ref('HeadMoveResult'), ref('DryRun')] },
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
};

/** Every operation's answers, by operationId (set on each controller method). */
export const OPERATIONS: Record<string, OperationDoc> = {
  getHealth: { success: [{ description: 'Alive; the store answers.', schema: ref('Health') }], errors: [503] },
  getLiveness: { success: [{ description: 'The process answers (no I/O).', schema: ANY_OBJECT }], errors: [] },
  getReadiness: { success: [{ description: 'Ready: every check passed (each listed).', schema: ANY_OBJECT }], errors: [503] },
  getMetrics: { success: [{ description: 'Prometheus text format.', schema: 'text' }], errors: [] },

  startSession: {
    success: [{ status: 201, description: 'The session started.', schema: ref('WriteResult'), headers: ['Location', 'ETag'] }],
    errors: [400, 401, 409, 413, 415, 503],
    write: true,
  },
  listSessions: { success: [{ description: 'One page of sessions.', schema: ref('SessionPageDto') }], errors: READ },
  getSession: { success: [{ description: 'The current state (the head).', schema: ref('SessionState'), headers: ['ETag'] }], errors: SESSION_READ },
  getSessionState: { success: [{ description: 'The state at that version (windowed with turns=last:N).', schema: ref('SessionState') }], errors: SESSION_READ },
  getTimeline: { success: [{ description: 'The timeline DAG.', schema: ref('Timeline') }], errors: SESSION_READ },
  streamSession: {
    success: [{ description: "The session's changes as server-sent events; each id is the event's session version.", schema: 'event-stream' }],
    errors: SESSION_READ,
  },
  streamTenant: {
    success: [{ description: "The tenant's changes as server-sent events; each id is the event's global log position.", schema: 'event-stream' }],
    errors: READ,
  },
  listEvents: { success: [{ description: 'One page of events, in stream order.', schema: ref('EventPage') }], errors: SESSION_READ },
  getDiff: { success: [{ description: 'Field-by-field changes.', schema: ref('Diff') }], errors: SESSION_READ },
  getContext: {
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

  recordSteps: step('The steps were recorded.', [...SESSION_WRITE, 428]),
  recordMessage: step('The message was recorded.'),
  startToolCall: step('The call was recorded as started.', [...SESSION_WRITE, 428]),
  succeedToolCall: step('The result was recorded.'),
  failToolCall: step('The failure was recorded.'),
  writeMemory: step('The memory entry was written.'),
  eraseMemory: step('The memory entry was erased.'),
  setContextVariable: step('The variable was set.'),
  pushTask: step('The task was pushed.'),
  popTask: step('The top task was popped.'),
  interruptTurn: step('The interrupt was recorded.'),
  createCheckpoint: step('The head was labelled (version is the record; head is the labelled node).'),

  rollback: headMove,
  undo: headMove,
  redo: headMove,

  getRollback: { success: [{ description: 'The plan and each outcome, live.', schema: ref('Rollback') }], errors: SESSION_READ },
  retryCompensation: {
    success: [{ status: 202, description: 'The retry is under way: poll the rollback.', schema: ref('Rollback') }],
    errors: SESSION_WRITE,
    write: true,
  },
  resolveCompensation: { success: [{ description: 'Resolved by hand (recorded).', schema: ref('Rollback') }], errors: SESSION_WRITE, write: true },

  registerTool: { success: [{ description: 'The tool as registered now.', schema: ref('Tool') }], errors: [400, 401, 409, 413, 415, 503], write: true },
  listTools: { success: [{ description: "The tenant's tools.", schema: ref('ToolList') }], errors: READ },
  getTool: { success: [{ description: 'The tool.', schema: ref('Tool') }], errors: SESSION_READ },

  recallMemory: { success: [{ description: 'What memory recalls, branch-aware.', schema: ref('Recall') }], errors: [...SESSION_READ, 409, 413, 415] },
  setSessionMemoryPolicy: {
    success: [{ description: "The session's policy now.", schema: ref('MemoryPolicyResult') }],
    errors: [400, 401, 404, 409, 413, 415, 503],
  },
  setTenantMemoryPolicy: {
    success: [{ description: "The tenant's policy now.", schema: ref('MemoryPolicyResult') }],
    errors: [400, 401, 409, 413, 415, 503],
  },
  getMemoryStatus: { success: [{ description: 'The indexer and the index.', schema: ref('MemoryStatus') }], errors: [401, 503] },

  getAuditLog: { success: [{ description: 'One page of the audit log.', schema: ref('AuditPageDto') }], errors: READ },
  listToolCalls: { success: [{ description: 'One page of the tool-call ledger.', schema: ref('ToolCallPageDto') }], errors: READ },
  getProjectionStatus: { success: [{ description: "Each projection's position and lag.", schema: ref('ProjectionsDto') }], errors: [401, 503] },

  saveComponentState: step("The component's state was recorded (a step of the session)."),
  getComponentState: { success: [{ description: "The component's state at the head (or at `at`).", schema: ANY_OBJECT }], errors: SESSION_READ },
  shredSession: {
    success: [{ status: 200, description: 'The session\'s data key is destroyed: its encrypted fields read "[shredded]" from now on.', schema: ANY_OBJECT }],
    errors: SESSION_WRITE,
  },

  createApiKey: {
    success: [{ status: 201, description: 'The key: its secret is in this answer only.', schema: ANY_OBJECT }],
    errors: [400, 401, 413, 415, 503],
  },
  listApiKeys: { success: [{ description: 'Ids, scopes and lifecycle; never secrets.', schema: ANY_OBJECT }], errors: READ },
  revokeApiKey: {
    success: [{ status: 200, description: 'Revoked: refused by every process within a second.', schema: ANY_OBJECT }],
    errors: [400, 401, 404, 503],
  },
  rotateApiKey: {
    success: [{ status: 200, description: 'A new secret (same id); the old one works for the grace period.', schema: ANY_OBJECT }],
    errors: [400, 401, 404, 409, 413, 415, 503],
  },
  setApiKeyExpiry: { success: [{ description: 'The key with its new expiry.', schema: ANY_OBJECT }], errors: [400, 401, 404, 409, 413, 415, 503] },

  getEncryptionPolicies: { success: [{ description: "The tenant's encryption policies.", schema: ANY_OBJECT }], errors: [401, 503] },
  setToolEncryption: { success: [{ description: "The tool's encrypted input and output paths.", schema: ANY_OBJECT }], errors: [400, 401, 413, 415, 503] },
  setMemoryKeyEncryption: {
    success: [{ description: "Whether the memory key's values are encrypted.", schema: ANY_OBJECT }],
    errors: [400, 401, 413, 415, 503],
  },

  verifyAuditChains: { success: [{ description: 'The hash chains checked: the first broken link, if any.', schema: ANY_OBJECT }], errors: SESSION_READ },
};
