import { LRUCache } from 'lru-cache';
import { validateEffectDeclaration, type EffectDescriptor, type ToolRegistered } from '@rewind/domain';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import { CommandPipeline, type CommandPipelineOptions, type CommandStream, type WrittenRange } from './commands/command-pipeline';
import type { Caller, WriteOptions } from './commands/write-request';
import { fingerprint } from './fingerprint';

export interface ToolDefinition {
  name: string;
  effect: EffectDescriptor;
  version: number;
  registeredAt: string;
  registeredBy: string;
}

const streamOf = (tenantId: string, name: string) => `tool:${tenantId}:${name}`;
/** Other processes' registrations are seen after at most this long. */
const CACHE_TTL_MS = 2_000;

/** A tool registration's decision: the effect declaration must hold together. */
export function decideRegisterTool(name: string, effect: EffectDescriptor): ToolRegistered {
  validateEffectDeclaration(name, effect);
  return { type: 'ToolRegistered', data: { name, effect } };
}

function definitionOf(event: StoredEvent): ToolDefinition {
  const { name, effect } = event.data as ToolRegistered['data'];
  return { name, effect, version: event.streamVersion, registeredAt: event.metadata.occurredAt, registeredBy: event.metadata.actor };
}

/** Tools' effect kinds, compensations and retry policies, per tenant; each change is an event on the tool's own stream. */
export class ToolRegistry {
  /** Definitions by stream, null for a tool never registered; the TTL bounds how stale another process's change looks. */
  // ttlResolution 0: read the clock on each look; the default (1 ms) caches it with a timer per millisecond of traffic.
  private readonly cache = new LRUCache<string, { definition: ToolDefinition | null }>({ max: 5_000, ttl: CACHE_TTL_MS, ttlResolution: 0 });
  private readonly pipeline: CommandPipeline;
  /** A tool stream's part in the pipeline: its state is its version; a commit refreshes the cache. */
  private readonly stream: CommandStream<{ version: number }, undefined, ToolDefinition>;

  constructor(
    private readonly store: EventStore,
    options: CommandPipelineOptions = {},
  ) {
    this.pipeline = new CommandPipeline(store, options);
    this.stream = {
      load: async (streamId) => ({ version: await store.streamVersion(streamId) }),
      forget: (streamId) => this.cache.delete(streamId),
      committed: async (streamId, _decidedOn, stored) => {
        const definition = definitionOf(stored[stored.length - 1]!);
        this.cache.set(streamId, { definition });
        return definition;
      },
      replayed: async (written: WrittenRange) => {
        const [event] = await store.readStream(written.streamId, { fromVersion: written.lastVersion, toVersion: written.lastVersion });
        return definitionOf(event!);
      },
    };
  }

  /** Registers or replaces a tool (through the command pipeline: If-Match and Idempotency-Key apply). */
  register(caller: Caller, name: string, effect: EffectDescriptor, options: WriteOptions = {}): Promise<ToolDefinition> {
    const print = options.idempotencyKey === undefined ? '' : fingerprint({ op: 'RegisterTool', name, effect });
    const request = { commandType: 'RegisterTool', caller, streamId: streamOf(caller.tenantId, name), sessionId: '', options, fingerprint: print };
    return this.pipeline.handle(this.stream, request, (_state, stamp) => ({
      events: stamp([{ ...decideRegisterTool(name, effect), parentVersion: null }]),
      context: undefined,
    }));
  }

  async get(tenantId: string, name: string): Promise<ToolDefinition | null> {
    const streamId = streamOf(tenantId, name);
    const cached = this.cache.get(streamId);
    if (cached) return cached.definition;
    const version = await this.store.streamVersion(streamId);
    const [last] = version === 0 ? [] : await this.store.readStream(streamId, { fromVersion: version });
    const definition = last ? definitionOf(last) : null;
    this.cache.set(streamId, { definition });
    return definition;
  }

  async list(tenantId: string): Promise<ToolDefinition[]> {
    const streams = await this.store.listStreams({ prefix: `tool:${tenantId}:`, limit: 1000 });
    const all = await Promise.all(streams.map((s) => this.get(tenantId, s.streamId.slice(`tool:${tenantId}:`.length))));
    return all.filter((d): d is ToolDefinition => d !== null);
  }
}
