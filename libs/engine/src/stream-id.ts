/** One stream per agent session, named from tenant and session id. */
export function sessionStreamId(tenantId: string, sessionId: string): string {
  return `session:${tenantId}:${sessionId}`;
}

export function sessionStreamPrefix(tenantId: string): string {
  return `session:${tenantId}:`;
}

export function sessionIdFromStream(streamId: string): string {
  return streamId.slice(streamId.indexOf(':', 'session:'.length) + 1);
}

/**
 * Ids that appear in stream names and URLs: letters, digits, `_`, `-`, `.`; 1–128 characters;
 * not `.` or `..`, which URL parsers remove as dot-segments (such an id could be created but never reached).
 */
export const ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9_.-]{1,128}$/;
