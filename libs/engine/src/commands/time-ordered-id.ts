import { v7 as uuidv7 } from 'uuid';

/**
 * UUIDv7 ids (RFC 9562), as uuid's `v7()` makes them — the same layout and the same monotonic
 * counter within a millisecond — but with random bytes drawn 4 KiB at a time. uuid draws 16 bytes
 * with `crypto.getRandomValues` for every id, a call into OpenSSL that was 4.6 % of the API's event
 * loop in a SQLite soak (a turn of five events takes six ids); Node's own `randomUUID` pools its
 * entropy the same way, but makes v4 ids.
 */
const IDS_PER_DRAW = 256;
const pool = new Uint8Array(16 * IDS_PER_DRAW);
let next = pool.length;

function randomBytes16(): Uint8Array {
  if (next === pool.length) {
    crypto.getRandomValues(pool);
    next = 0;
  }
  const bytes = pool.subarray(next, next + 16);
  next += 16;
  return bytes;
}

/** uuid's own v7 state (RFC 9562 method 1): the time, and a counter seeded at random for each new millisecond. */
const state = { msecs: -Infinity, seq: 0 };

export function timeOrderedId(): string {
  const random = randomBytes16();
  const now = Date.now();
  if (now > state.msecs) {
    state.msecs = now;
    state.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++;
  }
  return uuidv7({ random, msecs: state.msecs, seq: state.seq });
}
