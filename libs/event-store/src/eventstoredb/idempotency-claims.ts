import {
  BACKWARDS,
  END,
  FORWARDS,
  NO_STREAM,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type EventStoreDBClient,
  type JSONType,
} from '@eventstore/db-client';
import type { IdempotencyRecord } from '../event-store';
import { claimedKeyOf } from './event-mapping';

/**
 * Idempotency-Key records on EventStoreDB. The server cannot write two streams atomically,
 * so a keyed append runs as a claim: one stream per key (`<ns>-idempotency/<scope>/<key hash>`)
 * whose last event says where the key stands.
 *
 * 1. `IdempotencyClaimed` is appended at the key stream's expected revision: of several
 *    requests with the same key, exactly one wins (the others wait for its outcome).
 * 2. The winner appends its events, each carrying the key hash in its metadata.
 * 3. It records `IdempotencyCompleted` (streamId, versions, fingerprint): what a retry answers
 *    with, forever, as the SQL stores keep theirs. A failed append records `IdempotencyReleased`
 *    instead, so the key can be used again (a refused append wrote nothing, as on SQL).
 *
 * A claim left behind by a process that died between 1 and 3 is taken over after `leaseMs`:
 * the target stream is read from the version seen at claim time, and events carrying the key
 * complete the claim; if none did, it is released.
 */
export type KeyState =
  | { kind: 'free'; revision: bigint | typeof NO_STREAM }
  | { kind: 'claimed'; revision: bigint; fingerprint: string; streamId: string; fromVersion: number; claimedAt: number }
  | { kind: 'completed'; record: IdempotencyRecord };

interface Claimed {
  fingerprint: string;
  streamId: string;
  fromVersion: number;
  claimedAt: number;
}

interface Completed {
  fingerprint: string;
  streamId: string;
  firstVersion: number;
  lastVersion: number;
}

export class IdempotencyClaims {
  constructor(
    private readonly client: EventStoreDBClient,
    private readonly streamOf: (scope: string, storedKey: string) => string,
    private readonly logStreamOf: (streamId: string) => string,
  ) {}

  async state(scope: string, storedKey: string): Promise<KeyState> {
    try {
      for await (const resolved of this.client.readStream(this.streamOf(scope, storedKey), {
        fromRevision: END,
        direction: BACKWARDS,
        maxCount: 1,
        requiresLeader: true,
      })) {
        const event = resolved.event;
        if (!event) continue;
        const data = event.data as unknown;
        if (event.type === 'IdempotencyCompleted') {
          const c = data as Completed;
          return { kind: 'completed', record: { scope, key: storedKey, ...c } };
        }
        if (event.type === 'IdempotencyClaimed') return { kind: 'claimed', revision: event.revision, ...(data as Claimed) };
        return { kind: 'free', revision: event.revision };
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return { kind: 'free', revision: NO_STREAM };
  }

  /** True when this request now holds the key; false when another request got there first. */
  async claim(scope: string, storedKey: string, at: bigint | typeof NO_STREAM, claim: Omit<Claimed, 'claimedAt'>): Promise<boolean> {
    return this.write(scope, storedKey, at, 'IdempotencyClaimed', { ...claim, claimedAt: Date.now() });
  }

  async complete(scope: string, storedKey: string, claimRevision: bigint, outcome: Completed): Promise<boolean> {
    return this.write(scope, storedKey, claimRevision, 'IdempotencyCompleted', { ...outcome });
  }

  async release(scope: string, storedKey: string, claimRevision: bigint): Promise<boolean> {
    return this.write(scope, storedKey, claimRevision, 'IdempotencyReleased', {});
  }

  /** Completes or releases a claim whose holder stopped before recording the outcome. */
  async recover(scope: string, storedKey: string, state: Extract<KeyState, { kind: 'claimed' }>): Promise<void> {
    const versions: number[] = [];
    try {
      for await (const resolved of this.client.readStream(this.logStreamOf(state.streamId), {
        fromRevision: BigInt(state.fromVersion),
        direction: FORWARDS,
        requiresLeader: true,
      })) {
        if (resolved.event && claimedKeyOf(resolved.event) === storedKey) versions.push(Number(resolved.event.revision) + 1);
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    if (versions.length === 0) await this.release(scope, storedKey, state.revision);
    else {
      await this.complete(scope, storedKey, state.revision, {
        fingerprint: state.fingerprint,
        streamId: state.streamId,
        firstVersion: versions[0]!,
        lastVersion: versions[versions.length - 1]!,
      });
    }
  }

  private async write(scope: string, storedKey: string, expected: bigint | typeof NO_STREAM, type: string, data: Record<string, unknown>): Promise<boolean> {
    try {
      await this.client.appendToStream(this.streamOf(scope, storedKey), jsonEvent({ type, data: data as JSONType }), {
        expectedRevision: expected,
        requiresLeader: true,
      });
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return false;
      throw error;
    }
  }
}
