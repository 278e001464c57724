import { createHash } from 'node:crypto';
import type { ChainEvent, StoredEvent } from '../event-store';

/** The hash before the first event of every stream (and before the first block). */
export const GENESIS_HASH = '0'.repeat(64);
/** Seals per block of the global log; each block is summarised by a Merkle root. */
export const SEAL_BLOCK_SIZE = 1024;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The hash of an event as stored: its place (global position, stream, version), its id, type
 * and parent, and its data and metadata exactly as the store gives them back — ciphertext
 * where a field is encrypted, so shredding a key never breaks a chain.
 */
export function eventContentHash(event: StoredEvent): string {
  return sha256(
    JSON.stringify([
      event.globalPosition,
      event.streamId,
      event.streamVersion,
      event.eventId,
      event.type,
      event.parentVersion ?? null,
      event.data,
      event.metadata,
    ]),
  );
}

/** An event's link: the previous event of its stream's link, then its own content. */
export const chainHash = (previous: string, content: string) => sha256(`${previous}:${content}`);

/** A Merkle root (RFC 6962 style prefixes, so a leaf can never pass for an inner node). */
export function merkleRoot(leaves: readonly string[]): string {
  if (leaves.length === 0) return sha256('empty');
  let level = leaves.map((leaf) => sha256(`0:${leaf}`));
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha256(`1:${level[i]}:${level[i + 1]}`) : level[i]!);
    level = next;
  }
  return level[0]!;
}

export interface LogDigest {
  /** The last global position it covers. */
  position: number;
  /** Sealed events it covers. */
  events: number;
  /** Merkle root of each full block of SEAL_BLOCK_SIZE seals, in order. */
  blockRoots: string[];
  /** The digest: the block roots chained, then the partial block's root and the count. */
  hash: string;
}

/** Folds seal hashes, in global order, into the digest an auditor records. */
export class DigestBuilder {
  private chained = GENESIS_HASH;
  private readonly blockRoots: string[] = [];
  private block: string[] = [];
  private events = 0;
  private position = 0;

  add(position: number, sealHash: string): void {
    this.block.push(sealHash);
    this.events++;
    this.position = position;
    if (this.block.length === SEAL_BLOCK_SIZE) {
      const root = merkleRoot(this.block);
      this.blockRoots.push(root);
      this.chained = sha256(`${this.chained}:${root}`);
      this.block = [];
    }
  }

  result(): LogDigest {
    const tail = this.block.length > 0 ? merkleRoot(this.block) : GENESIS_HASH;
    return { position: this.position, events: this.events, blockRoots: [...this.blockRoots], hash: sha256(`${this.chained}:${tail}:${this.events}`) };
  }
}

/** The digest as one line to record: `rwd-digest-v1:<position>:<events>:<hash>`. */
export const formatDigest = (d: LogDigest) => `rwd-digest-v1:${d.position}:${d.events}:${d.hash}`;

export function parseDigest(text: string): { position: number; events: number; hash: string } | null {
  const match = /^rwd-digest-v1:(\d+):(\d+):([0-9a-f]{64})$/.exec(text.trim());
  return match ? { position: Number(match[1]), events: Number(match[2]), hash: match[3]! } : null;
}

/**
 * Links (format 2): written with the event, in the append's transaction, as 32 bytes in the
 * events row. `link = sha256(previous link of the stream ‖ position ‖ version ‖ digest)`, the
 * position and version as 8-byte big-endian integers (PostgreSQL's int8send), the digest over
 * the event's texts exactly as stored (see eventDigest). The stream's first event, and the first
 * event written after an upgrade from sealed events, chain from 32 zero bytes.
 */
export const GENESIS_LINK: Buffer = Buffer.alloc(32);

/** What an event's link covers besides its place: its stream, id, type, parent and its stored texts. */
export function eventDigest(streamId: string, eventId: string, type: string, parentVersion: number | null, data: string, metadata: string): Buffer {
  // Stored data and metadata are JSON texts, which never hold a raw newline: the joins are unambiguous.
  return createHash('sha256')
    .update(JSON.stringify([streamId, eventId, type, parentVersion]))
    .update('\n')
    .update(data)
    .update('\n')
    .update(metadata)
    .digest();
}

const int8 = (value: number) => {
  const bytes = Buffer.allocUnsafe(8);
  bytes.writeBigInt64BE(BigInt(value));
  return bytes;
};

/** An event's link: its stream's previous link, its place and its digest. PostgreSQL computes the same in append_events (migration 8). */
export function eventLink(previous: Buffer, position: number, version: number, digest: Buffer): Buffer {
  return createHash('sha256').update(previous).update(int8(position)).update(int8(version)).update(digest).digest();
}

/** The link a stored event should carry, given the link before it in its stream. */
export const expectedLink = (event: ChainEvent, previous: Buffer) =>
  eventLink(previous, event.position, event.version, eventDigest(event.streamId, event.eventId, event.type, event.parentVersion, event.data, event.metadata));

/**
 * A snapshot's seal: the link of the event at its version (so the snapshot is bound to the chain
 * there), its version, and its keyed tag (see snapshotTag: the state's digest under a snapshot
 * key). Written with the snapshot; checked at every load: a snapshot whose seal does not hold is not served.
 */
export function snapshotSeal(link: Buffer | null, version: number, tag: Buffer): Buffer {
  return createHash('sha256')
    .update(link ?? GENESIS_LINK)
    .update(int8(version))
    .update(tag)
    .digest();
}

export const sha256Bytes = (text: string) => createHash('sha256').update(text, 'utf8').digest();
