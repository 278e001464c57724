import type { EventStore, StoredEvent } from '../event-store';
import { chainHash, DigestBuilder, eventContentHash, GENESIS_HASH, parseDigest, formatDigest, type LogDigest } from './audit-chain';
import type { EventSeal, SealStore } from './seal-store';

const BATCH = 1000;

/**
 * Seals every event of the log not sealed yet, in global order: each gets its link in its
 * stream's chain. Deterministic, so two sealers racing write the same seals.
 */
export async function sealLog(store: EventStore, seals: SealStore, batchSize = BATCH): Promise<{ sealed: number; position: number }> {
  const outcome = await seals.exclusively(async () => {
    let after = await seals.lastSealedPosition();
    let sealed = 0;
    for (;;) {
      const events = await store.readAll({ after, limit: batchSize });
      if (events.length === 0) break;
      const heads = new Map([...(await seals.streamHeads([...new Set(events.map((e) => e.streamId))]))].map(([id, s]) => [id, s.hash]));
      const batch: EventSeal[] = events.map((event) => {
        const hash = chainHash(heads.get(event.streamId) ?? GENESIS_HASH, eventContentHash(event));
        heads.set(event.streamId, hash);
        return { position: event.globalPosition, streamId: event.streamId, streamVersion: event.streamVersion, hash };
      });
      await seals.append(batch);
      sealed += batch.length;
      after = events[events.length - 1]!.globalPosition;
      if (events.length < batchSize) break;
    }
    return { sealed, position: after };
  });
  return outcome ?? { sealed: 0, position: await seals.lastSealedPosition() };
}

/** The digest of the sealed log, up to `upTo` (default: all of it). */
export async function logDigest(seals: SealStore, upTo?: number): Promise<LogDigest> {
  const builder = new DigestBuilder();
  for (let after = 0; ; ) {
    const batch = await seals.readSeals({ after, limit: BATCH, ...(upTo !== undefined ? { upTo } : {}) });
    for (const seal of batch) builder.add(seal.position, seal.hash);
    if (batch.length < BATCH) break;
    after = batch[batch.length - 1]!.position;
  }
  return builder.result();
}

/** The first link that does not hold, in words an auditor can act on. */
export interface BrokenLink {
  streamId: string;
  streamVersion: number | null;
  position: number | null;
  problem: string;
}

export interface AuditVerification {
  ok: boolean;
  /** Events whose links were recomputed and matched (up to the first broken one). */
  checked: number;
  /** Events newer than the last seal: not covered yet (the sealer runs every second). */
  unsealed: number;
  firstBroken: BrokenLink | null;
  /** With `expectedDigest`: whether the sealed log still yields it. */
  digestMatches: boolean | null;
}

export interface VerifyOptions {
  /** Only these streams (a session, a tenant's sessions); default: the whole global log. */
  streamIds?: readonly string[];
  /** A digest recorded earlier (`rewind audit digest`): the log up to its position must still yield it. */
  expectedDigest?: string;
}

/** Recomputes the hash chains from the stored events and compares them with the seals. Reads only. */
export async function verifyLog(store: EventStore, seals: SealStore, options: VerifyOptions = {}): Promise<AuditVerification> {
  const result = options.streamIds ? await verifyStreams(store, seals, options.streamIds) : await verifyGlobal(store, seals);
  let digestMatches: boolean | null = null;
  if (options.expectedDigest !== undefined) {
    const expected = parseDigest(options.expectedDigest);
    if (!expected)
      throw new Error(`"${options.expectedDigest}" is not a digest printed by \`rewind audit digest\` (rwd-digest-v1:<position>:<events>:<hash>).`);
    const now = await logDigest(seals, expected.position);
    digestMatches = formatDigest(now) === `rwd-digest-v1:${expected.position}:${expected.events}:${expected.hash}`;
  }
  return { ...result, ok: result.firstBroken === null && digestMatches !== false, digestMatches };
}

type Partial = Omit<AuditVerification, 'ok' | 'digestMatches'>;

/** Checks one event against its seal; null when the link holds. */
function checkLink(event: StoredEvent, seal: EventSeal, previous: { hash: string; version: number } | undefined): string | null {
  if (event.streamId !== seal.streamId || event.streamVersion !== seal.streamVersion) {
    return `position ${event.globalPosition} holds ${event.streamId} version ${event.streamVersion}, but ${seal.streamId} version ${seal.streamVersion} was sealed there: events were moved or reordered`;
  }
  if (event.streamVersion !== (previous?.version ?? 0) + 1) {
    return `version ${event.streamVersion} follows version ${previous?.version ?? 0}: events before it are missing`;
  }
  if (chainHash(previous?.hash ?? GENESIS_HASH, eventContentHash(event)) !== seal.hash) {
    return 'the stored event is not the one that was sealed: it was altered, or events were reordered';
  }
  return null;
}

const missing = (seal: EventSeal): BrokenLink => ({
  streamId: seal.streamId,
  streamVersion: seal.streamVersion,
  position: seal.position,
  problem: 'this event was sealed and is no longer in the log: it was deleted (or moved)',
});

async function verifyGlobal(store: EventStore, seals: SealStore): Promise<Partial> {
  const lastSealed = await seals.lastSealedPosition();
  const heads = new Map<string, { hash: string; version: number }>();
  let checked = 0;
  let unsealed = 0;
  let events: StoredEvent[] = [];
  let sealBatch: EventSeal[] = [];
  let eventsAfter = 0;
  let sealsAfter = 0;
  let eventsDone = false;
  let sealsDone = false;
  for (;;) {
    if (events.length === 0 && !eventsDone) {
      events = await store.readAll({ after: eventsAfter, limit: BATCH });
      eventsDone = events.length < BATCH;
      if (events.length > 0) eventsAfter = events[events.length - 1]!.globalPosition;
    }
    if (sealBatch.length === 0 && !sealsDone) {
      sealBatch = await seals.readSeals({ after: sealsAfter, limit: BATCH });
      sealsDone = sealBatch.length < BATCH;
      if (sealBatch.length > 0) sealsAfter = sealBatch[sealBatch.length - 1]!.position;
    }
    const event = events[0];
    const seal = sealBatch[0];
    if (!event && !seal) return { checked, unsealed, firstBroken: null };
    if (seal && (!event || seal.position < event.globalPosition)) return { checked, unsealed, firstBroken: missing(seal) };
    events.shift();
    if (!seal || event!.globalPosition < seal.position) {
      if (event!.globalPosition <= lastSealed) {
        const e = event!;
        return {
          checked,
          unsealed,
          firstBroken: {
            streamId: e.streamId,
            streamVersion: e.streamVersion,
            position: e.globalPosition,
            problem: 'this event is not sealed though later ones are: it was inserted after the fact',
          },
        };
      }
      unsealed++;
      continue;
    }
    sealBatch.shift();
    const e = event!;
    const problem = checkLink(e, seal, heads.get(e.streamId));
    if (problem) return { checked, unsealed, firstBroken: { streamId: e.streamId, streamVersion: e.streamVersion, position: e.globalPosition, problem } };
    heads.set(e.streamId, { hash: seal.hash, version: e.streamVersion });
    checked++;
  }
}

async function verifyStreams(store: EventStore, seals: SealStore, streamIds: readonly string[]): Promise<Partial> {
  let checked = 0;
  let unsealed = 0;
  for (const streamId of streamIds) {
    const events = await store.readStream(streamId);
    const sealed = await seals.readStreamSeals(streamId);
    let previous: { hash: string; version: number } | undefined;
    for (let i = 0; i < Math.max(events.length, sealed.length); i++) {
      const event = events[i];
      const seal = sealed[i];
      if (!seal) {
        unsealed += events.length - i;
        break;
      }
      if (!event || event.streamVersion > seal.streamVersion) return { checked, unsealed, firstBroken: missing(seal) };
      const problem = checkLink(event, seal, previous);
      if (problem) return { checked, unsealed, firstBroken: { streamId, streamVersion: event.streamVersion, position: event.globalPosition, problem } };
      previous = { hash: seal.hash, version: event.streamVersion };
      checked++;
    }
  }
  return { checked, unsealed, firstBroken: null };
}
