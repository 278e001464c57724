import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { sha256Bytes, snapshotSeal } from './audit-chain';

/** A key snapshot seals are made with; the newest (highest id) seals, every one kept verifies. */
export interface SnapshotKey {
  id: number;
  secret: Buffer;
}

/** A new random snapshot key's secret. */
export const newSnapshotKeySecret = (): Buffer => randomBytes(32);

/**
 * What a snapshot's seal covers besides the chain: HMAC-SHA256 under a snapshot key of its
 * stream, reducer version, version and the sha256 of its state's JSON text. The stored seal is
 * snapshotSeal(link at the version, version, this tag), so PostgreSQL binds it to the chain in
 * the insert as before, while nobody without the key can seal a state of their own: recomputing
 * the plain hash over an edited row no longer makes a seal that holds.
 */
export function snapshotTag(key: Buffer, streamId: string, reducerVersion: number, version: number, stateDigest: Buffer): Buffer {
  return createHmac('sha256', key)
    .update(JSON.stringify(['rewind-snapshot-v2', streamId, reducerVersion, version]))
    .update('\n')
    .update(stateDigest)
    .digest();
}

/** The stored snapshot being checked: its seal, the link of the event at its version, its place, its state's JSON text. */
export interface SealedSnapshot {
  seal: Buffer | null;
  link: Buffer | null;
  streamId: string;
  reducerVersion: number;
  version: number;
  stateJson: string;
}

/**
 * The secret a stored key seals with. Under a master key (REWIND_MASTER_KEY) it is derived from
 * the stored secret and the master key (HKDF-SHA256), so that whoever reads or writes the database
 * alone, stored secrets included, still cannot seal a state of their own; without one it is the
 * stored secret itself.
 */
export function sealingSecret(storedSecret: Buffer, masterKey: Buffer | undefined): Buffer {
  if (!masterKey) return storedSecret;
  return Buffer.from(hkdfSync('sha256', masterKey, storedSecret, 'rewind snapshot seal key v1', 32));
}

/**
 * The snapshot keys of a store, as last read from it. A seal that holds under none of them is
 * re-checked once after reading the keys again (another process may have rotated them).
 *
 * With a master key, seals are made and served under the derived secrets only. A seal that holds
 * under a stored secret itself was made before the master key was set (or by someone holding the
 * database alone): a stale cache, not served and not reported — the next snapshot of the session
 * replaces it, as when the keys were first added.
 */
export class SnapshotKeyRing {
  private keys: { id: number; sealing: Buffer; stored: Buffer }[] = [];

  constructor(
    private readonly read: () => SnapshotKey[] | Promise<SnapshotKey[]>,
    private readonly masterKey?: Buffer,
  ) {}

  /** Reads the keys (at open, and when a seal holds under none of those known). */
  async refresh(): Promise<void> {
    this.set(await this.read());
  }

  /** Sets the keys read synchronously (SQLite). */
  set(keys: SnapshotKey[]): void {
    if (keys.length === 0) throw new Error('The store holds no snapshot key: its schema was not brought up to date (migration 9 on PostgreSQL).');
    this.keys = [...keys].sort((a, b) => b.id - a.id).map((key) => ({ id: key.id, stored: key.secret, sealing: sealingSecret(key.secret, this.masterKey) }));
  }

  /** The digest the seal statement takes for a snapshot: its tag under the newest key. */
  tag(streamId: string, reducerVersion: number, version: number, stateJson: string): Buffer {
    return snapshotTag(this.keys[0]!.sealing, streamId, reducerVersion, version, sha256Bytes(stateJson));
  }

  /** The seal as the store writes it (where the link is at hand, SQLite). */
  seal(link: Buffer | null, streamId: string, reducerVersion: number, version: number, stateJson: string): Buffer {
    return snapshotSeal(link, version, this.tag(streamId, reducerVersion, version, stateJson));
  }

  private holdsUnder(snapshot: SealedSnapshot, secrets: Buffer[]): boolean {
    const digest = sha256Bytes(snapshot.stateJson);
    return secrets.some((secret) =>
      snapshotSeal(snapshot.link, snapshot.version, snapshotTag(secret, snapshot.streamId, snapshot.reducerVersion, snapshot.version, digest)).equals(
        snapshot.seal!,
      ),
    );
  }

  /** Null when the seal holds; else why the snapshot is not served (isCacheMiss tells whether that is a finding). */
  problem(snapshot: SealedSnapshot): string | null {
    if (snapshot.seal === null) return UNSEALED;
    if (
      this.holdsUnder(
        snapshot,
        this.keys.map((k) => k.sealing),
      )
    )
      return null;
    if (
      this.masterKey &&
      this.holdsUnder(
        snapshot,
        this.keys.map((k) => k.stored),
      )
    )
      return SEALED_WITHOUT_MASTER_KEY;
    return ALTERED;
  }

  /** As problem(), reading the keys again before refusing (a rotation by another process). */
  async problemAfterRefresh(snapshot: SealedSnapshot): Promise<string | null> {
    const problem = this.problem(snapshot);
    if (problem !== ALTERED) return problem;
    await this.refresh();
    return this.problem(snapshot);
  }
}

/** Whether a snapshot refused for this problem is a plain cache miss (replayed, not reported): unsealed, or sealed before the master key. */
export const isCacheMiss = (problem: string | null): boolean => problem === UNSEALED || problem === SEALED_WITHOUT_MASTER_KEY;

const UNSEALED = 'it carries no seal (written before snapshots were sealed, or its seal was removed)';
const SEALED_WITHOUT_MASTER_KEY = 'it was sealed without the master key (before REWIND_MASTER_KEY was set): a stale cache';
const ALTERED =
  "its seal does not hold under the store's snapshot keys: the snapshot row was altered (its content, version or seal), or it was sealed with a key since removed";
