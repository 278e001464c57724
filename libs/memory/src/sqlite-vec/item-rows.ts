import type { MemoryItem, MemoryRole } from '../memory-item';

/** A row of a model's items table. */
export interface ItemRow {
  rowid: number;
  id: string;
  tenant_id: string;
  session_id: string;
  event_id: string;
  version: number;
  global_position: number;
  role: string;
  occurred_at: string;
  chunk: number;
  text: string;
  memory_key: string | null;
  /** Empty while the item awaits its vector (stage 1 made it searchable by keywords only). */
  vector: Buffer;
}

/** The vector column of an item admitted before its vector (zero bytes: the column predates pending items and is NOT NULL). */
export const NO_VECTOR = Buffer.alloc(0);

export function toItem(row: ItemRow): MemoryItem {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sessionId: row.session_id,
    eventId: row.event_id,
    version: row.version,
    globalPosition: row.global_position,
    role: row.role as MemoryRole,
    occurredAt: row.occurred_at,
    chunk: row.chunk,
    text: row.text,
    ...(row.memory_key !== null ? { memoryKey: row.memory_key } : {}),
  };
}

export function blobOf(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function vectorOf(blob: Buffer): Float32Array {
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** A hit's vector when the row has one (an item awaiting its vector has none: recall scores it by keywords alone). */
export function storedVector(row: ItemRow): { vector?: Float32Array } {
  return row.vector.length > 0 ? { vector: vectorOf(row.vector) } : {};
}

export function dot(a: Float32Array, b: Buffer): number {
  const v = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * v[i]!;
  return sum;
}
