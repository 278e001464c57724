import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { JsonValue } from '@rewind/domain';

/** One serialized value: JSON stays JSON inside the event (no string-in-string escaping), other types are base64. */
export type EncodedValue = { t: 'json'; v: JsonValue } | { t: string; b: string };

/**
 * A channel's value at one version. Lists (LangGraph's `messages`) are stored as what was
 * appended to the previous version, so a thread's storage grows with what was said, not
 * with the square of it; anything else is stored whole.
 */
export type EncodedChannel = { whole: EncodedValue } | { list: { base: string | null; keep: number; items: EncodedValue[] } };

const decoder = new TextDecoder();

export async function encodeValue(serde: SerializerProtocol, value: unknown): Promise<EncodedValue> {
  const [type, bytes] = await serde.dumpsTyped(value);
  if (type === 'json') return { t: 'json', v: JSON.parse(decoder.decode(bytes)) as JsonValue };
  return { t: type, b: Buffer.from(bytes).toString('base64') };
}

export function decodeValue(serde: SerializerProtocol, encoded: EncodedValue): Promise<unknown> {
  return 'v' in encoded ? serde.loadsTyped('json', JSON.stringify(encoded.v)) : serde.loadsTyped(encoded.t, Buffer.from(encoded.b, 'base64'));
}

/** The serialized form of a list channel at one version, item by item. */
export interface MaterializedList {
  items: EncodedValue[];
  /** `JSON.stringify` of each item, to compare a new list with this one without decoding. */
  keys: string[];
}

/**
 * Remembers how objects were serialized, so that the unchanged head of a long message list
 * is not serialized again on every step. Keyed weakly: the graph's own objects decide how
 * long an entry lives.
 */
export class EncodingMemo {
  private readonly known = new WeakMap<object, { encoded: EncodedValue; key: string }>();

  remember(value: unknown, encoded: EncodedValue, key: string = JSON.stringify(encoded)): void {
    if (typeof value === 'object' && value !== null) this.known.set(value, { encoded, key });
  }

  async encode(serde: SerializerProtocol, value: unknown): Promise<{ encoded: EncodedValue; key: string }> {
    const hit = typeof value === 'object' && value !== null ? this.known.get(value) : undefined;
    if (hit) return hit;
    const encoded = await encodeValue(serde, value);
    const entry = { encoded, key: JSON.stringify(encoded) };
    this.remember(value, encoded, entry.key);
    return entry;
  }
}

/** Encodes `value` as a change from `previous` (the same channel's value in the parent checkpoint). */
export async function encodeChannel(
  serde: SerializerProtocol,
  memo: EncodingMemo,
  value: unknown,
  previous: { version: string; list: MaterializedList } | null,
): Promise<{ channel: EncodedChannel; list: MaterializedList | null }> {
  if (!Array.isArray(value)) return { channel: { whole: await encodeValue(serde, value) }, list: null };
  const encoded = await Promise.all(value.map((item) => memo.encode(serde, item)));
  const list: MaterializedList = { items: encoded.map((e) => e.encoded), keys: encoded.map((e) => e.key) };
  let keep = 0;
  if (previous) {
    const limit = Math.min(previous.list.keys.length, list.keys.length);
    while (keep < limit && previous.list.keys[keep] === list.keys[keep]) keep++;
  }
  return { channel: { list: { base: keep > 0 ? previous!.version : null, keep, items: list.items.slice(keep) } }, list };
}
