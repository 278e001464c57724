import { createHash } from 'node:crypto';
import type { StoredEvent } from '../event-store';

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
