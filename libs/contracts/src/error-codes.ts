/**
 * Every `error.code` the HTTP API answers with, so that the OpenAPI document can list them as an
 * enum (generated clients get a type to switch on). A unit spec scans the sources for codes and
 * fails when one is missing here: add a new code to this list when you add it to the code.
 */
export const ERROR_CODES = [
  // Request shape (400, 405, 406, 408, 413, 415, 431)
  'validation_failed',
  'invalid_json',
  'invalid_cursor',
  'bad_request',
  'bad_header',
  'bad_url',
  'headers_too_large',
  'payload_too_large',
  'unsupported_media_type',
  'method_not_allowed',
  'not_acceptable',
  'request_timeout',
  'route_not_found',
  'not_a_step',
  'compensation_template_invalid',
  'compensation_template_unresolvable',
  'compensation_missing',
  // Keys and limits (401, 403, 429)
  'unauthorized',
  'forbidden',
  'insufficient_scope',
  'rate_limited',
  'too_many_requests',
  // Not found for this tenant (404)
  'not_found',
  'session_not_found',
  'version_not_found',
  'checkpoint_not_found',
  'turn_not_found',
  'tool_call_not_found',
  'tool_not_found',
  'memory_key_not_found',
  'component_not_found',
  'rollback_not_found',
  'effect_not_in_rollback',
  'api_key_not_found',
  'signing_key_not_found',
  'ui_not_built',
  // Conflicts (409)
  'conflict',
  'version_conflict',
  'idempotency_key_reused',
  'session_exists',
  'session_shredded',
  'checkpoint_exists',
  'already_at_version',
  'nothing_to_undo',
  'nothing_to_redo',
  'rollback_in_progress',
  'rollback_not_in_progress',
  'compensation_not_pending',
  'compensation_not_failed',
  'compensations_outstanding',
  'compensation_required',
  'irreversible_not_acknowledged',
  'tool_call_exists',
  'compensated_effects_on_path',
  'task_stack_empty',
  'turn_not_open',
  'tool_call_not_in_progress',
  'memory_disabled',
  'api_key_revoked',
  'signing_key_revoked',
  // Irreversible effects (428)
  'confirmation_required',
  // The server's side (500, 503)
  'store_unavailable',
  'memory_unavailable',
  'not_ready',
  'internal_error',
  // A status without a more precise code.
  'error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
