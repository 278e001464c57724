import type { JsonValue } from '@rewind/domain';
import { isEncryptedValue } from '@rewind/tenancy';
import { chunkText, type ChunkingOptions } from './chunking';
import { LowInformationFilter, type LowInformationOptions } from './low-information';

/** Who said or produced what a memory item holds. */
export type MemoryRole = 'user' | 'agent' | 'tool' | 'memory';

/**
 * One searchable piece of a session's history, derived from one event (a long text gives
 * several, one per chunk). Addressable by tenant and session, so that erasing a session's
 * data (crypto-shredding) can find all of it.
 */
export interface MemoryItem {
  /** `<eventId>:<chunk>`: re-indexing the same event overwrites, never duplicates. */
  id: string;
  tenantId: string;
  sessionId: string;
  eventId: string;
  /** Stream version of the event: its node in the session's timeline. */
  version: number;
  globalPosition: number;
  role: MemoryRole;
  occurredAt: string;
  chunk: number;
  text: string;
  /** For memory writes: the key written (a later write or erase of the key supersedes it). */
  memoryKey?: string;
  /**
   * The previous turn on the item's path (its end), searched together with `text` but never
   * returned as the hit's text (see TurnContext). Not stored: the index keeps what it derived from it.
   */
  context?: string;
}

/** The parts of a stored event that memory reads (a StoredEvent or a message from `rewind.events`). */
export interface MemorySourceEvent {
  eventId: string;
  type: string;
  data: unknown;
  streamVersion: number;
  /** The event's parent in the session's timeline (absent or null: none, or not known). */
  parentVersion?: number | null;
  globalPosition: number;
  metadata: { tenantId: string; sessionId: string; occurredAt: string };
}

export interface MemoryItemOptions {
  lowInformation?: LowInformationOptions;
  chunking?: ChunkingOptions;
}

/**
 * Renders a JSON value as plain text for search: strings as they are, objects as `key: value`
 * lines. Encrypted fields render as nothing: memory never holds a sensitive field, neither its
 * plaintext (it never sees it) nor its ciphertext (noise to search, and it would outlive a shred).
 */
export function renderValue(value: JsonValue | undefined): string {
  if (value === null || value === undefined || isEncryptedValue(value)) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value))
    return value
      .map(renderValue)
      .filter((s) => s.length > 0)
      .join('; ');
  return Object.entries(value)
    .map(([k, v]) => {
      const text = renderValue(v);
      return text.length > 0 ? `${k}: ${text}` : '';
    })
    .filter((s) => s.length > 0)
    .join('; ');
}

export function renderMemoryWrite(key: string, value: JsonValue): string {
  return `${key}: ${renderValue(value)}`;
}

/**
 * Turns events into memory items. Indexed: user and agent messages, the visible part of an
 * interrupted answer (the same text the context window keeps), completed tool results and
 * memory writes. Not indexed: low-information turns, failed or unfinished tool calls,
 * everything that records what happened *to* the session (head moves, compensations), and the
 * agent's thoughts: recall feeds the LLM context (`GET …/context?recall=`), which never holds
 * reasoning unless asked for (`includeThoughts`).
 */
export class MemoryItemExtractor {
  private readonly filter: LowInformationFilter;

  constructor(private readonly options: MemoryItemOptions = {}) {
    this.filter = new LowInformationFilter(options.lowInformation);
  }

  isLowInformation(text: string): boolean {
    return this.filter.isLowInformation(text);
  }

  itemsOf(event: MemorySourceEvent): MemoryItem[] {
    const source = this.sourceText(event);
    if (!source || source.text.length === 0 || this.filter.isLowInformation(source.text)) return [];
    return chunkText(source.text, this.options.chunking).map((text, chunk) => ({
      id: `${event.eventId}:${chunk}`,
      tenantId: event.metadata.tenantId,
      sessionId: event.metadata.sessionId,
      eventId: event.eventId,
      version: event.streamVersion,
      globalPosition: event.globalPosition,
      role: source.role,
      occurredAt: event.metadata.occurredAt,
      chunk,
      text,
      ...(source.memoryKey !== undefined ? { memoryKey: source.memoryKey } : {}),
    }));
  }

  private sourceText(event: MemorySourceEvent): { role: MemoryRole; text: string; memoryKey?: string } | null {
    const data = (event.data ?? {}) as Record<string, unknown>;
    switch (event.type) {
      case 'UserMessageReceived':
        return { role: 'user', text: renderValue(data.content as JsonValue) };
      case 'AgentMessageProduced':
        return { role: 'agent', text: renderValue(data.content as JsonValue) };
      case 'TurnInterrupted':
        // Only what the user saw of the cut-off answer (seed 003).
        return { role: 'agent', text: renderValue(data.partialContent as JsonValue) };
      case 'ToolCallSucceeded':
        return { role: 'tool', text: renderValue(data.output as JsonValue) };
      case 'MemoryWritten': {
        const key = String(data.key ?? '');
        const value = renderValue(data.value as JsonValue);
        return { role: 'memory', text: value.length > 0 ? renderMemoryWrite(key, data.value as JsonValue) : '', memoryKey: key };
      }
      default:
        return null;
    }
  }
}
