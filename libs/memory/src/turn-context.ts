import { LRUCache } from 'lru-cache';
import type { MemoryItem, MemorySourceEvent } from './memory-item';

export interface TurnContextOptions {
  /** Turns remembered (default 20 000; a turn whose previous turn was forgotten is indexed alone). */
  maxTurns?: number;
  /** Characters of the previous turn kept, its end (default 400: the window stays within the model's input). */
  maxContextChars?: number;
  /** Ancestors looked at for a previous turn with something to say (default 4). */
  maxHops?: number;
}

interface Remembered {
  parentVersion: number | null;
  /** The text the event's items were made of; null for an event that gave none (bookkeeping, a greeting). */
  text: string | null;
}

/**
 * Gives each indexed message its previous turn as context: a "causal" window (the previous turn
 * and the turn), so that a question finds the answer that follows its topic two lines later, and
 * a turn is never embedded again when later turns arrive. The previous turn is taken on the
 * turn's own path — its parent, then the parent's parent — so a window never joins a turn with
 * one from another branch. Events are remembered as the indexer sees them (in log order, parents
 * first); a turn whose previous turn was not seen by this process (it was indexed before a
 * restart) is indexed alone.
 */
export class TurnContext {
  private readonly turns: LRUCache<string, Remembered>;
  private readonly maxContextChars: number;
  private readonly maxHops: number;

  constructor(options: TurnContextOptions = {}) {
    this.turns = new LRUCache({ max: options.maxTurns ?? 20_000 });
    this.maxContextChars = options.maxContextChars ?? 400;
    this.maxHops = options.maxHops ?? 4;
  }

  /** Remembers the event, and returns its items with their context (messages only). */
  attach(event: MemorySourceEvent, items: MemoryItem[]): MemoryItem[] {
    const { tenantId, sessionId } = event.metadata;
    const parentVersion = event.parentVersion ?? null;
    this.turns.set(key(tenantId, sessionId, event.streamVersion), {
      parentVersion,
      text: items.length > 0 ? items.map((i) => i.text).join(' ') : null,
    });
    if (items.length === 0 || (items[0]!.role !== 'user' && items[0]!.role !== 'agent')) return items;
    const previous = this.previousTurn(tenantId, sessionId, parentVersion);
    if (previous === null) return items;
    // Only the first chunk of a long text follows the previous turn; the others stand alone.
    return items.map((item) => (item.chunk === 0 ? { ...item, context: previous } : item));
  }

  /** Forgets what a shredded (or policy `none`) session or tenant said: no later window may carry it back into the index. */
  forget(scope: { tenantId: string; sessionId?: string }): void {
    const prefix = scope.sessionId === undefined ? `${scope.tenantId}\u0000` : `${scope.tenantId}\u0000${scope.sessionId}\u0000`;
    for (const k of [...this.turns.keys()]) if (k.startsWith(prefix)) this.turns.delete(k);
  }

  private previousTurn(tenantId: string, sessionId: string, parentVersion: number | null): string | null {
    let version = parentVersion;
    for (let hop = 0; hop < this.maxHops && version !== null && version > 0; hop++) {
      const turn = this.turns.get(key(tenantId, sessionId, version));
      if (!turn) return null;
      if (turn.text !== null) return turn.text.length > this.maxContextChars ? turn.text.slice(-this.maxContextChars) : turn.text;
      version = turn.parentVersion;
    }
    return null;
  }
}

function key(tenantId: string, sessionId: string, version: number): string {
  return `${tenantId}\u0000${sessionId}\u0000${version}`;
}

/** What an item is searched by: its previous turn, then its own text (the hit shows its own text only). */
export function indexedText(item: Pick<MemoryItem, 'text' | 'context'>): string {
  return item.context ? `${item.context}\n${item.text}` : item.text;
}

/** Each text after its previous turn, as one text (a model that embeds a turn with its context as a window). */
export function asWindows(texts: readonly string[], contexts: readonly (string | undefined)[] | undefined): string[] {
  return texts.map((text, i) => indexedText({ text, context: contexts?.[i] }));
}

/** The item as stored: its context was only searched by, and is not kept. */
export function withoutContext({ context: _context, ...item }: MemoryItem): Omit<MemoryItem, 'context'> {
  return item;
}
