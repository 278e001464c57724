import { createHash } from 'node:crypto';
import { ID_PATTERN } from '@rewind/engine';

/** Session ids the mapping makes start with one of these; a thread id that starts with one is always encoded. */
const ENCODED_PREFIX = 'lg.';
const HASHED_PREFIX = 'lh.';
const MAX_SESSION_ID = 128;
/** Characters an encoded id keeps as they are; any other UTF-16 code unit becomes `_` and 4 lowercase hex digits. */
const KEPT = /[A-Za-z0-9.-]/;
const ESCAPE = /_([0-9a-f]{4})/g;

/**
 * The Rewind session id of a LangGraph thread id. LangGraph takes any string as a thread id;
 * a session id is 1-128 letters, digits, `_`, `-` or `.` (it names an event stream and a URL
 * segment). The mapping is one-to-one:
 *
 * - a thread id that already is a valid session id, and does not start with `lg.` or `lh.`,
 *   is its own session id (`trip-42` → `trip-42`);
 * - any other, while the result fits in 128 characters: `lg.` and the id with each character
 *   other than a letter, digit, `.` or `-` written as `_` and its UTF-16 code in 4 hex digits
 *   (`user:42` → `lg.user_003a42`, `two words` → `lg.two_0020words`);
 * - a longer one: `lh.` and the SHA-256 of the id (base64url, 43 characters). Every session
 *   the saver starts keeps its thread id in its metadata (`langgraph.thread`, escaped as
 *   above), where listing every thread reads it back.
 */
export function sessionIdOfThread(threadId: string): string {
  if (ID_PATTERN.test(threadId) && !isMapped(threadId)) return threadId;
  const encoded = ENCODED_PREFIX + escapeThreadId(threadId);
  if (encoded.length <= MAX_SESSION_ID) return encoded;
  return HASHED_PREFIX + createHash('sha256').update(threadId, 'utf16le').digest('base64url');
}

/**
 * A thread id in ASCII letters, digits, `.`, `-` and `_` escapes, one-to-one: the encoded
 * session id's body, and what a session keeps in its metadata (where any store can hold it:
 * PostgreSQL's JSON refuses a lone surrogate or a NUL character).
 */
export function escapeThreadId(threadId: string): string {
  let escaped = '';
  for (let i = 0; i < threadId.length; i++) {
    const char = threadId[i]!;
    escaped += KEPT.test(char) ? char : `_${threadId.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return escaped;
}

/** The thread id an `escapeThreadId` result stands for; `undefined` for a string it never makes. */
export function unescapeThreadId(escaped: string): string | undefined {
  const threadId = escaped.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  // Only the one spelling escapeThreadId makes (`_005f` never names a kept character, `_` never stands alone).
  return escapeThreadId(threadId) === escaped ? threadId : undefined;
}

/**
 * The thread id of a session id, where the id alone says it: `undefined` for a hashed id
 * (`lh.…`, whose thread id is in the session's metadata) and for an id the mapping never makes.
 */
export function threadIdOfSession(sessionId: string): string | undefined {
  if (!isMapped(sessionId)) return ID_PATTERN.test(sessionId) ? sessionId : undefined;
  if (!sessionId.startsWith(ENCODED_PREFIX)) return undefined;
  const threadId = unescapeThreadId(sessionId.slice(ENCODED_PREFIX.length));
  return threadId !== undefined && sessionIdOfThread(threadId) === sessionId ? threadId : undefined;
}

function isMapped(id: string): boolean {
  return id.startsWith(ENCODED_PREFIX) || id.startsWith(HASHED_PREFIX);
}
