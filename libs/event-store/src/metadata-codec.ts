import type { EventMetadataRecord } from './event-store';

/**
 * Event metadata as stored: short keys, and whatever can be told from elsewhere left out. It
 * is the largest part of a small event, and stored once per event.
 *
 * - tenant and session (`t`, `s`): left out when the stream id says the same (see
 *   `streamScope`: `session:<tenant>:<session>`, `<kind>:<tenant>:<name>` with session '');
 * - command id: a canonical lower-case UUID as its 16 bytes in base64url (`u`, 22 characters),
 *   any other string as it is (`c`);
 * - occurred at: milliseconds since the epoch (`o`, a number) when `Date.toISOString()` gives
 *   the string back exactly, else the string;
 * - correlation id: left out when it is the command id; a canonical lower-case UUID (the request
 *   id the API makes) as its 16 bytes in base64url (`q`, 22 characters), any other string as it
 *   is (`r`);
 * - both ids canonical UUIDs and different (every write through the API): one string of their 32
 *   bytes instead of `u` and `q` (`w`, 43 characters);
 * - occurred at, when the command id is a UUIDv7 (the engine's ids are): its time is the id's
 *   own milliseconds, so it is left out when equal, or stored as the difference (`d`) — the
 *   command id and the time are taken together, so they differ by a millisecond at most (with
 *   `w`: 26 bytes less a row than `u`, `o` and `q`, issue 40);
 * - no causation, schema version 1: left out (`k`, `v`);
 * - traceparent (only on writes whose trace was sampled): a sampled version-00 one as its trace
 *   and span ids, 24 bytes in base64url (`p`, 32 characters: 39 bytes with its key), any other
 *   as it is (`P`); left out when absent.
 *
 * Rows written before (the long form with `commandId`, or short keys with `t`, `s`, `c` and an
 * ISO `o` always present) decode unchanged.
 */
interface StoredMetadata {
  t?: string;
  s?: string;
  c?: string;
  u?: string;
  a: string;
  o: string | number;
  k?: string | null;
  r?: string;
  q?: string;
  v?: number;
  p?: string;
  P?: string;
  w?: string;
  d?: number;
}

/**
 * Tenant and session as the stream id names them: `<kind>:<tenant>:<rest>`; the session is
 * `<rest>` for `session` streams, '' for any other kind. null when the id has fewer than two
 * `:`. Part of the stored format: never change what it returns for a given id.
 */
export function streamScope(streamId: string): { tenantId: string; sessionId: string } | null {
  const first = streamId.indexOf(':');
  if (first < 0) return null;
  const second = streamId.indexOf(':', first + 1);
  if (second < 0) return null;
  const session = first === 7 && streamId.startsWith('session');
  return { tenantId: streamId.slice(first + 1, second), sessionId: session ? streamId.slice(second + 1) : '' };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A canonical lower-case UUID as 22 base64url characters; null for any other string. */
export function compactUuid(id: string): string | null {
  if (id.length !== 36 || !UUID.test(id)) return null;
  return Buffer.from(id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24), 'hex').toString('base64url');
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const BASE64URL = new Uint8Array(128);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) BASE64URL[c.charCodeAt(0)] = i;
/** Scratch space: the text is written here and copied out as one flat string (this runs for every event read). */
const scratch = Buffer.alloc(64);

function putHex(byte: number, at: number): void {
  scratch[at] = HEX_DIGITS[byte >>> 4]!;
  scratch[at + 1] = HEX_DIGITS[byte & 15]!;
}

/** The UUID that `compactUuid` made `compact` from. */
export function expandUuid(compact: string): string {
  const b = (i: number) => BASE64URL[compact.charCodeAt(i) & 127]!;
  // 22 characters: five groups of 4 (3 bytes each), then 2 (1 byte); dashes after bytes 4, 6, 8, 10.
  let at = 0;
  let byte = 0;
  const put = (value: number) => {
    if (byte === 4 || byte === 6 || byte === 8 || byte === 10) scratch[at++] = 45;
    putHex(value, at);
    at += 2;
    byte++;
  };
  for (let i = 0; i < 20; i += 4) {
    const n = (b(i) << 18) | (b(i + 1) << 12) | (b(i + 2) << 6) | b(i + 3);
    put(n >>> 16);
    put((n >>> 8) & 255);
    put(n & 255);
  }
  put(((b(20) << 2) | (b(21) >>> 4)) & 255);
  return scratch.toString('latin1', 0, 36);
}

/** The milliseconds a canonical lower-case UUIDv7 carries (its first 48 bits), or null for any other string. */
export function uuidV7Time(id: string): number | null {
  if (id.length !== 36 || id.charCodeAt(14) !== 55 /* '7' */ || !UUID.test(id)) return null;
  const variant = id.charCodeAt(19);
  // RFC 9562 variant: 8, 9, a or b.
  if (!(variant === 56 || variant === 57 || variant === 97 || variant === 98)) return null;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

const DAY_MS = 86_400_000;
let cachedDay = NaN;
let cachedPrefix = 0;

function putDigits(value: number, at: number, width: number): void {
  for (let i = width - 1; i >= 0; i--) {
    scratch[at + i] = 48 + (value % 10);
    value = Math.floor(value / 10);
  }
}

/** `new Date(ms).toISOString()` for whole ms, faster: the date part of the last day seen is kept (events come in runs of one day). */
export function isoTime(ms: number): string {
  const inDay = ms - cachedDay;
  if (!(inDay >= 0 && inDay < DAY_MS) || !Number.isInteger(ms)) {
    const iso = new Date(ms).toISOString();
    cachedDay = Math.floor(ms / DAY_MS) * DAY_MS;
    // The date and the 'T' stay in the scratch buffer until another day comes.
    cachedPrefix = scratch.write(iso.slice(0, iso.indexOf('T') + 1), 36, 'latin1') + 36;
    return iso;
  }
  const seconds = Math.floor(inDay / 1000);
  let at = cachedPrefix;
  putDigits(Math.floor(seconds / 3600), at, 2);
  scratch[at + 2] = 58;
  putDigits(Math.floor(seconds / 60) % 60, at + 3, 2);
  scratch[at + 5] = 58;
  putDigits(seconds % 60, at + 6, 2);
  scratch[at + 8] = 46;
  putDigits(inDay - seconds * 1000, at + 9, 3);
  scratch[at + 12] = 90;
  at += 13;
  return scratch.toString('latin1', 36, at);
}

/** Milliseconds when the string is exactly what `Date.toISOString()` writes for them, else the string. */
function compactTime(iso: string): string | number {
  if (iso.length !== 24) return iso;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && new Date(ms).toISOString() === iso ? ms : iso;
}

const SAMPLED_TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

/** A sampled version-00 traceparent as its trace and span ids in base64url (32 characters); null for any other. */
export function compactTraceparent(traceparent: string): string | null {
  if (traceparent.length !== 55 || !SAMPLED_TRACEPARENT.test(traceparent)) return null;
  return Buffer.from(traceparent.slice(3, 35) + traceparent.slice(36, 52), 'hex').toString('base64url');
}

/** The traceparent that `compactTraceparent` made `compact` from. */
export function expandTraceparent(compact: string): string {
  const hex = Buffer.from(compact, 'base64url').toString('hex');
  return `00-${hex.slice(0, 32)}-${hex.slice(32)}-01`;
}

/** The stored form of `m` for an event of stream `streamId`, as an object (JSON.stringify it to store). */
export function compactMetadata(m: EventMetadataRecord, streamId: string): StoredMetadata {
  const scope = streamScope(streamId);
  const stored = {} as StoredMetadata;
  if (scope?.tenantId !== m.tenantId) stored.t = m.tenantId;
  if (scope?.sessionId !== m.sessionId) stored.s = m.sessionId;
  const u = compactUuid(m.commandId);
  const q = m.correlationId === m.commandId ? null : compactUuid(m.correlationId);
  if (u === null) stored.c = m.commandId;
  else if (q === null) stored.u = u;
  else stored.w = Buffer.concat([Buffer.from(u, 'base64url'), Buffer.from(q, 'base64url')]).toString('base64url');
  stored.a = m.actor;
  const occurred = compactTime(m.occurredAt);
  const idTime = typeof occurred === 'number' && u !== null ? uuidV7Time(m.commandId) : null;
  if (idTime === null) stored.o = occurred;
  else if (occurred !== idTime) stored.d = (occurred as number) - idTime;
  if (m.causationId !== null) stored.k = m.causationId;
  if (m.correlationId !== m.commandId && stored.w === undefined) {
    if (q === null) stored.r = m.correlationId;
    else stored.q = q;
  }
  if (m.schemaVersion !== 1) stored.v = m.schemaVersion;
  if (m.traceparent !== undefined) {
    const p = compactTraceparent(m.traceparent);
    if (p === null) stored.P = m.traceparent;
    else stored.p = p;
  }
  return stored;
}

export function encodeMetadata(m: EventMetadataRecord, streamId: string): string {
  return JSON.stringify(compactMetadata(m, streamId));
}

/** Reads every stored form (see the interface comment); `streamId` is the event's stream. */
export function decodeMetadata(raw: string | object, streamId: string): EventMetadataRecord {
  const value = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Partial<StoredMetadata> & Partial<EventMetadataRecord>;
  if (value.commandId !== undefined) return value as EventMetadataRecord;
  const scope = value.t === undefined || value.s === undefined ? streamScope(streamId) : null;
  let commandId: string;
  let correlationId: string | undefined;
  if (value.w !== undefined) {
    const both = Buffer.from(value.w, 'base64url');
    commandId = expandUuid(both.subarray(0, 16).toString('base64url'));
    correlationId = expandUuid(both.subarray(16).toString('base64url'));
  } else {
    commandId = value.c ?? expandUuid(value.u!);
  }
  const traceparent = typeof value.p === 'string' ? expandTraceparent(value.p) : value.P;
  // No `o`: the command id is a UUIDv7 and the time is its own (plus `d`).
  const occurred = value.o ?? uuidV7Time(commandId)! + (value.d ?? 0);
  const metadata: EventMetadataRecord = {
    tenantId: value.t ?? scope?.tenantId ?? '',
    sessionId: value.s ?? scope?.sessionId ?? '',
    commandId,
    causationId: value.k ?? null,
    correlationId: correlationId ?? value.r ?? (value.q === undefined ? commandId : expandUuid(value.q)),
    actor: value.a!,
    occurredAt: typeof occurred === 'number' ? isoTime(occurred) : occurred,
    schemaVersion: value.v ?? 1,
  };
  if (traceparent !== undefined) metadata.traceparent = traceparent;
  return metadata;
}
