import { randomUUID } from 'node:crypto';
import { EVENT_SCHEMA_VERSION, validateEffectDeclaration, type EffectDescriptor, type ToolRegistered } from '@rewind/domain';
import type { EventStore } from '@rewind/event-store';
import { LruCache } from './lru-cache';
import type { Caller, WriteOptions } from './session-service';

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

/** Tools' effect kinds, compensations and retry policies, per tenant; each change is an event. */
export class ToolRegistry {
  private readonly cache = new LruCache<string, { definition: ToolDefinition | null; at: number }>(5_000);

  constructor(private readonly store: EventStore) {}

  async register(caller: Caller, name: string, effect: EffectDescriptor, options: WriteOptions = {}): Promise<ToolDefinition> {
    validateEffectDeclaration(name, effect);
    const event: ToolRegistered = { type: 'ToolRegistered', data: { name, effect } };
    const streamId = streamOf(caller.tenantId, name);
    const now = new Date().toISOString();
    const commandId = options.commandId ?? randomUUID();
    const result = await this.store.append(
      streamId,
      [
        {
          eventId: randomUUID(),
          type: event.type,
          data: event.data,
          parentVersion: null,
          metadata: {
            tenantId: caller.tenantId,
            sessionId: '',
            commandId,
            causationId: null,
            correlationId: options.correlationId ?? commandId,
            actor: caller.actor,
            occurredAt: now,
            schemaVersion: EVENT_SCHEMA_VERSION,
          },
        },
      ],
      { expectedVersion: options.expectedVersion ?? 'any' },
    );
    const definition = { name, effect, version: result.lastVersion, registeredAt: now, registeredBy: caller.actor };
    this.cache.set(streamId, { definition, at: Date.now() });
    return definition;
  }

  async get(tenantId: string, name: string): Promise<ToolDefinition | null> {
    const streamId = streamOf(tenantId, name);
    const cached = this.cache.get(streamId);
    if (cached && Date.now() - cached.at < CACHE_TTL_MS) return cached.definition;
    const version = await this.store.streamVersion(streamId);
    const [last] = version === 0 ? [] : await this.store.readStream(streamId, { fromVersion: version });
    const definition = last
      ? { name, effect: (last.data as ToolRegistered['data']).effect, version, registeredAt: last.metadata.occurredAt, registeredBy: last.metadata.actor }
      : null;
    this.cache.set(streamId, { definition, at: Date.now() });
    return definition;
  }

  async list(tenantId: string): Promise<ToolDefinition[]> {
    const streams = await this.store.listStreams({ prefix: `tool:${tenantId}:`, limit: 1000 });
    const all = await Promise.all(streams.map((s) => this.get(tenantId, s.streamId.slice(`tool:${tenantId}:`.length))));
    return all.filter((d): d is ToolDefinition => d !== null);
  }
}
