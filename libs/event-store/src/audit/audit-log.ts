import { decodeMetadata } from '../metadata-codec';
import type { ChainEvent, EventStore, StoredEvent } from '../event-store';
import { chainHash, DigestBuilder, eventContentHash, expectedLink, GENESIS_HASH, GENESIS_LINK, parseDigest, formatDigest, type LogDigest } from './audit-chain';
import type { EventSeal, SealStore } from './seal-store';
import type { SnapshotRejection } from './snapshot-rejections';

const BATCH = 1000;

/** Whether the store writes each event's link with the event (SQLite, PostgreSQL); others are sealed after the fact. */
const linksWithEvents = (store: EventStore) => store.readChain !== undefined && store.linksFrom !== undefined;

/**
 * Seals every event of the log not sealed yet, in global order: each gets its link in its
 * stream's chain. Deterministic, so two sealers racing write the same seals. On a store that
 * links events as it writes them, only events written before links (before the upgrade) are
 * sealed; `done` then says none is left, and there is nothing more ever to seal.
 */
export async function sealLog(store: EventStore, seals: SealStore, batchSize = BATCH): Promise<{ sealed: number; position: number; done: boolean }> {
  const linksFrom = linksWithEvents(store) ? await store.linksFrom!() : Number.POSITIVE_INFINITY;
  let done = false;
  const outcome = await seals.exclusively(async () => {
    let after = await seals.lastSealedPosition();
    let sealed = 0;
    for (;;) {
      const read = await store.readAll({ after, limit: batchSize });
      const events = read.filter((e) => e.globalPosition < linksFrom);
      if (events.length < read.length || (read.length < batchSize && Number.isFinite(linksFrom))) done = true;
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
      if (done || events.length < batchSize) break;
    }
    return { sealed, position: after };
  });
  return { ...(outcome ?? { sealed: 0, position: await seals.lastSealedPosition() }), done: done && outcome !== null };
}

/**
 * The digest of the log up to `upTo` (default: the head): each event's link (its seal's hash for
 * an event written before links), folded in global order. A digest recorded before the upgrade
 * covers sealed events only, which keep their seals: it still yields the same.
 */
export async function logDigest(store: EventStore, seals: SealStore, upTo?: number): Promise<LogDigest> {
  if (!linksWithEvents(store)) return sealedDigest(seals, upTo);
  const builder = new DigestBuilder();
  const bound = upTo ?? (await store.lastPosition());
  for (let after = 0; ; ) {
    const rows = await store.readChain!({ after, upTo: bound, limit: BATCH, content: false });
    const legacy = await seals.sealsAt(rows.filter((r) => r.link === null).map((r) => r.position));
    for (const row of rows) builder.add(row.position, row.link ? row.link.toString('hex') : (legacy.get(row.position)?.hash ?? GENESIS_HASH));
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.position;
  }
  return builder.result();
}

/** The digest of the seals alone (a store that is sealed after the fact). */
async function sealedDigest(seals: SealStore, upTo?: number): Promise<LogDigest> {
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
  /**
   * Events not covered yet: on SQLite and PostgreSQL only events written before the upgrade to
   * links and not sealed yet (the API seals them when it starts); elsewhere, events newer than
   * the last seal (the sealer runs every second).
   */
  unsealed: number;
  firstBroken: BrokenLink | null;
  /** With `expectedDigest`: whether the sealed log still yields it. */
  digestMatches: boolean | null;
  /** Snapshots checked against their seals (0 where the store keeps no snapshot seals). */
  snapshotsChecked: number;
  /** Snapshots whose seal does not hold: altered; they are not served (reads replay the events). */
  snapshotsRejected: SnapshotRejection[];
}

export interface VerifyOptions {
  /** Only these streams (a session, a tenant's sessions); default: the whole global log. */
  streamIds?: readonly string[];
  /**
   * Only the streams whose id starts with this (a tenant's sessions): every event of them in
   * the log is checked, including those of a stream the caller does not know of.
   */
  streamPrefix?: string;
  /** A digest recorded earlier (`rewind audit digest`): the log up to its position must still yield it. */
  expectedDigest?: string;
}

/** Recomputes the hash chains from the stored events and compares them with the seals. Reads only. */
export async function verifyLog(store: EventStore, seals: SealStore, options: VerifyOptions = {}): Promise<AuditVerification> {
  let result: Partial;
  let snapshots: { checked: number; rejected: SnapshotRejection[] } = { checked: 0, rejected: [] };
  if (linksWithEvents(store)) {
    const scopes = options.streamIds
      ? options.streamIds.map((streamId) => ({ streamId }))
      : [options.streamPrefix !== undefined ? { streamPrefix: options.streamPrefix } : {}];
    result = { checked: 0, unsealed: 0, firstBroken: null };
    for (const scope of scopes) {
      const part = await verifyLinked(store, seals, scope);
      result = { checked: result.checked + part.checked, unsealed: result.unsealed + part.unsealed, firstBroken: part.firstBroken };
      if (part.firstBroken) break;
      if (store.checkSnapshots) {
        const checked = await store.checkSnapshots(scope);
        snapshots = { checked: snapshots.checked + checked.checked, rejected: [...snapshots.rejected, ...checked.rejected] };
      }
    }
  } else {
    const streamIds = options.streamIds ?? (options.streamPrefix !== undefined ? await listStreamIds(store, options.streamPrefix) : undefined);
    result = streamIds ? await verifyStreams(store, seals, streamIds) : await verifyGlobal(store, seals);
  }
  let digestMatches: boolean | null = null;
  if (options.expectedDigest !== undefined) {
    const expected = parseDigest(options.expectedDigest);
    if (!expected)
      throw new Error(`"${options.expectedDigest}" is not a digest printed by \`rewind audit digest\` (rwd-digest-v1:<position>:<events>:<hash>).`);
    const now = await logDigest(store, seals, expected.position);
    digestMatches = formatDigest(now) === `rwd-digest-v1:${expected.position}:${expected.events}:${expected.hash}`;
  }
  return {
    ...result,
    ok: result.firstBroken === null && digestMatches !== false && snapshots.rejected.length === 0,
    digestMatches,
    snapshotsChecked: snapshots.checked,
    snapshotsRejected: snapshots.rejected,
  };
}

/** Every stream whose id starts with `prefix`, from the store's list, with its recorded version. */
async function listStreamVersions(store: EventStore, prefix: string): Promise<Map<string, number>> {
  const versions = new Map<string, number>();
  for (let after: string | undefined; ; ) {
    const page = await store.listStreams({ prefix, limit: 1000, ...(after ? { after } : {}) });
    for (const s of page) versions.set(s.streamId, s.version);
    if (page.length < 1000) return versions;
    after = page[page.length - 1]!.streamId;
  }
}

const listStreamIds = async (store: EventStore, prefix: string) => [...(await listStreamVersions(store, prefix)).keys()];

/** An event written before links, as the seals hashed it (parsed, as the store reads it back). */
function asStored(row: ChainEvent): StoredEvent {
  return {
    globalPosition: row.position,
    streamId: row.streamId,
    streamVersion: row.version,
    eventId: row.eventId,
    type: row.type,
    parentVersion: row.parentVersion,
    data: JSON.parse(row.data),
    metadata: decodeMetadata(row.metadata, row.streamId),
  };
}

interface Head {
  version: number;
  /** The event's link; null for an event written before links. */
  link: Buffer | null;
  /** For an event written before links: its seal's hash (undefined: not sealed yet). */
  sealHash?: string;
}

/**
 * Checks every event of the scope in global order: each carries the link its stream's previous
 * link, its place and its stored texts give (or, written before links, matches its seal); its
 * version follows the previous one of its stream; and each stream's recorded version is where
 * its events end. An event inserted, deleted, altered, moved or reordered breaks one of these.
 */
async function verifyLinked(store: EventStore, seals: SealStore, scope: { streamId?: string; streamPrefix?: string }): Promise<Partial> {
  const upTo = await store.lastPosition();
  const linksFrom = await store.linksFrom!();
  // The sealer seals events written before links in global order: one left unsealed below a sealed one was not there when it ran.
  const lastSealed = await seals.lastSealedPosition();
  const heads = new Map<string, Head>();
  const sealedSeen = new Set<number>();
  let checked = 0;
  let unsealed = 0;
  const broken = (streamId: string, streamVersion: number | null, position: number | null, problem: string): Partial => ({
    checked,
    unsealed,
    firstBroken: { streamId, streamVersion, position, problem },
  });
  for (let after = 0; ; ) {
    const rows = await store.readChain!({ after, upTo, limit: BATCH, ...scope });
    const legacy = await seals.sealsAt(rows.filter((r) => r.link === null && r.position < linksFrom).map((r) => r.position));
    for (const row of rows) {
      const fail = (problem: string) => broken(row.streamId, row.version, row.position, problem);
      const previous = heads.get(row.streamId);
      const previousVersion = previous?.version ?? 0;
      if (row.version !== previousVersion + 1) {
        return fail(
          row.version <= previousVersion
            ? `version ${row.version} comes after version ${previousVersion} in the global log: events were reordered, moved or duplicated`
            : `version ${row.version} follows version ${previousVersion}: events before it were deleted, or events were reordered`,
        );
      }
      if (row.link === null) {
        if (row.position >= linksFrom || previous?.link) {
          return fail(
            'this event carries no link though every event written since the upgrade to links carries one: it was inserted after the fact, or its link was removed',
          );
        }
        const seal = legacy.get(row.position);
        if (!seal && row.position < lastSealed) {
          return fail('this event carries neither a link nor a seal though later events are sealed: it was inserted after the fact');
        }
        if (!seal) {
          unsealed++;
          heads.set(row.streamId, { version: row.version, link: null });
          continue;
        }
        if (previous && previous.sealHash === undefined)
          return fail('this event is sealed though the event before it in its stream is not: seals were rewritten');
        const problem = checkLink(asStored(row), seal, previous ? { hash: previous.sealHash!, version: previous.version } : undefined);
        if (problem) return fail(problem);
        sealedSeen.add(row.position);
        heads.set(row.streamId, { version: row.version, link: null, sealHash: seal.hash });
      } else {
        if (!expectedLink(row, previous?.link ?? GENESIS_LINK).equals(row.link)) {
          return fail(
            'the stored event is not the one linked when it was written: it was altered, moved to another position, or an event before it in its stream was',
          );
        }
        heads.set(row.streamId, { version: row.version, link: row.link });
      }
      checked++;
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.position;
  }
  // Where each stream's events must end: its recorded version (a deleted tail, a stream nobody recorded).
  const recorded: Map<string, number> =
    scope.streamId !== undefined
      ? new Map([[scope.streamId, await store.streamVersion(scope.streamId)]])
      : await listStreamVersions(store, scope.streamPrefix ?? '');
  for (const [streamId, version] of recorded) {
    const seen = heads.get(streamId)?.version ?? 0;
    if (seen > version)
      return broken(streamId, seen, null, `the stream records version ${version} but holds events up to version ${seen}: events were inserted after the fact`);
    if (seen < version) {
      const next = (await store.readStream(streamId, { fromVersion: seen + 1, limit: 1 }))[0];
      if (!next || next.globalPosition <= upTo) {
        return broken(streamId, seen + 1, null, `the stream records version ${version} but its events end at version ${seen}: events were deleted`);
      }
    }
  }
  for (const [streamId, head] of heads) {
    if (!recorded.has(streamId)) {
      return broken(streamId, head.version, null, 'events of a stream the store does not record: they were inserted after the fact');
    }
  }
  if (scope.streamId === undefined && scope.streamPrefix === undefined) {
    // The whole log: every seal's event must still be there.
    for (let after = 0; ; ) {
      const batch = await seals.readSeals({ after, limit: BATCH, upTo });
      for (const seal of batch) if (!sealedSeen.has(seal.position)) return { checked, unsealed, firstBroken: missing(seal) };
      if (batch.length < BATCH) break;
      after = batch[batch.length - 1]!.position;
    }
  }
  return { checked, unsealed, firstBroken: null };
}

type Partial = Pick<AuditVerification, 'checked' | 'unsealed' | 'firstBroken'>;

/** Checks one event against its seal; null when the link holds. */
function checkLink(event: StoredEvent, seal: EventSeal, previous: { hash: string; version: number } | undefined): string | null {
  if (event.streamId !== seal.streamId || event.streamVersion !== seal.streamVersion) {
    // Neither the position nor the other stream is named: a tenant's auditor reads this answer.
    return 'another event was sealed at the place in the log this event holds: events were moved or reordered';
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
