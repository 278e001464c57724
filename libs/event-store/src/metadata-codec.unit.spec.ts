import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventMetadataRecord } from './event-store';
import {
  compactTraceparent,
  compactUuid,
  decodeMetadata,
  encodeMetadata,
  expandTraceparent,
  expandUuid,
  isoTime,
  streamScope,
  uuidV7Time,
} from './metadata-codec';

const base: EventMetadataRecord = {
  tenantId: 'acme',
  sessionId: 's-42',
  commandId: '0b7e4c1a-9d2f-4e3b-8a6c-5f1e2d3c4b5a',
  causationId: null,
  correlationId: '0b7e4c1a-9d2f-4e3b-8a6c-5f1e2d3c4b5a',
  actor: 'key:abc',
  occurredAt: '2026-03-01T12:34:56.789Z',
  schemaVersion: 1,
};

const sampledTraceparent = fc
  .tuple(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.uint8Array({ minLength: 8, maxLength: 8 }))
  .map(([trace, span]) => `00-${Buffer.from(trace).toString('hex')}-${Buffer.from(span).toString('hex')}-01`);

describe('event metadata codec', () => {
  it('leaves out what the stream id and the defaults tell, and stores UUIDs and times compactly', () => {
    const stored = JSON.parse(encodeMetadata(base, 'session:acme:s-42')) as Record<string, unknown>;
    expect(stored).toEqual({ u: compactUuid(base.commandId), a: 'key:abc', o: Date.parse(base.occurredAt) });
    expect((stored.u as string).length).toBe(22);
    expect(decodeMetadata(JSON.stringify(stored), 'session:acme:s-42')).toEqual(base);
  });

  it("stores a correlation id that is a UUID (the API's request id) with the command id as one 43-character string, and any other as it is", () => {
    const requestId = '99475f8a-33e8-48e9-a832-e0aef7717d3b';
    const fromApi = { ...base, correlationId: requestId };
    const stored = JSON.parse(encodeMetadata(fromApi, 'session:acme:s-42')) as Record<string, unknown>;
    expect(stored).toEqual({ w: expect.any(String), a: 'key:abc', o: Date.parse(base.occurredAt) });
    expect((stored.w as string).length).toBe(43);
    expect(decodeMetadata(JSON.stringify(stored), 'session:acme:s-42')).toEqual(fromApi);
    // Rows written before `w` keep their `u` and `q`, and those before `q` their `r`.
    const u = compactUuid(base.commandId);
    expect(decodeMetadata(JSON.stringify({ u, a: 'key:abc', o: stored.o, q: compactUuid(requestId) }), 'session:acme:s-42')).toEqual(fromApi);
    expect(decodeMetadata(JSON.stringify({ u, a: 'key:abc', o: stored.o, r: requestId }), 'session:acme:s-42')).toEqual(fromApi);
    expect(JSON.parse(encodeMetadata({ ...base, correlationId: 'corr' }, 'session:acme:s-42'))).toEqual({
      u,
      a: 'key:abc',
      o: Date.parse(base.occurredAt),
      r: 'corr',
    });
  });

  it("leaves the time out when the command id is a UUIDv7 of the same millisecond (the engine's ids), and keeps the difference when not", () => {
    // 0x019c7d4e0f15 ms = 2026-02-20T...: the time and the id are taken together by the engine.
    const commandId = '019c7d4e-0f15-7a2b-9c3d-4e5f60718293';
    const ms = uuidV7Time(commandId)!;
    expect(ms).toBe(0x019c7d4e0f15);
    const engine = { ...base, commandId, correlationId: '99475f8a-33e8-48e9-a832-e0aef7717d3b', occurredAt: new Date(ms).toISOString() };
    const stored = encodeMetadata(engine, 'session:acme:s-42');
    expect(JSON.parse(stored)).toEqual({ w: expect.any(String), a: 'key:abc' });
    // 26 characters less than the form before (u, a, o, q).
    const before = JSON.stringify({ u: compactUuid(commandId), a: 'key:abc', o: ms, q: compactUuid(engine.correlationId) });
    expect(before.length - stored.length).toBe(26);
    expect(decodeMetadata(stored, 'session:acme:s-42')).toEqual(engine);
    const later = { ...engine, occurredAt: new Date(ms + 1).toISOString() };
    expect(JSON.parse(encodeMetadata(later, 'session:acme:s-42'))).toMatchObject({ d: 1 });
    expect(decodeMetadata(encodeMetadata(later, 'session:acme:s-42'), 'session:acme:s-42')).toEqual(later);
    // Not a v7 id, or not a canonical time: the time is stored.
    expect(uuidV7Time(base.commandId)).toBeNull();
    expect(uuidV7Time('019c7d4e-0f15-7a2b-7c3d-4e5f60718293')).toBeNull();
    expect(JSON.parse(encodeMetadata({ ...engine, occurredAt: '2026-02-20T00:00:00Z' }, 'session:acme:s-42'))).toMatchObject({ o: '2026-02-20T00:00:00Z' });
  });

  it('keeps tenant and session when the stream id says otherwise', () => {
    const encoded = encodeMetadata(base, 'session:other:s-42');
    expect(JSON.parse(encoded)).toMatchObject({ t: 'acme' });
    expect(JSON.parse(encoded)).not.toHaveProperty('s');
    expect(decodeMetadata(encoded, 'session:other:s-42')).toEqual(base);
    for (const streamId of ['session:acme:s-43', 'tool:acme:search', 'plain', 'a:b', 'session:acme', '']) {
      expect(decodeMetadata(encodeMetadata(base, streamId), streamId)).toEqual(base);
    }
  });

  it('derives the empty session of tool streams (and any other kind)', () => {
    const tool = { ...base, sessionId: '' };
    expect(JSON.parse(encodeMetadata(tool, 'tool:acme:search_hotels'))).not.toHaveProperty('t');
    expect(JSON.parse(encodeMetadata(tool, 'tool:acme:search_hotels'))).not.toHaveProperty('s');
    expect(decodeMetadata(encodeMetadata(tool, 'tool:acme:search_hotels'), 'tool:acme:search_hotels')).toEqual(tool);
    expect(streamScope('session:t:a:b')).toEqual({ tenantId: 't', sessionId: 'a:b' });
    expect(streamScope('sessions:t:a')).toEqual({ tenantId: 't', sessionId: '' });
    expect(streamScope('tool:t')).toBeNull();
  });

  it('stores other command ids and non-canonical times as they are', () => {
    const odd = { ...base, commandId: '0B7E4C1A-9D2F-4E3B-8A6C-5F1E2D3C4B5A', correlationId: 'corr', occurredAt: '2026-03-01T12:34:56Z', causationId: 'x' };
    const stored = JSON.parse(encodeMetadata(odd, 'session:acme:s-42')) as Record<string, unknown>;
    expect(stored).toMatchObject({ c: odd.commandId, o: odd.occurredAt, r: 'corr', k: 'x' });
    expect(stored).not.toHaveProperty('u');
    expect(decodeMetadata(JSON.stringify(stored), 'session:acme:s-42')).toEqual(odd);
    // A 22-character command id is not mistaken for a compact UUID.
    const short = { ...base, commandId: 'abcdefghijklmnopqrstuv', correlationId: 'abcdefghijklmnopqrstuv' };
    expect(decodeMetadata(encodeMetadata(short, 'session:acme:s-42'), 'session:acme:s-42')).toEqual(short);
  });

  it('reads rows written by earlier versions: the long form and the first short form', () => {
    expect(decodeMetadata(JSON.stringify(base), 'session:zzz:yyy')).toEqual(base);
    const v1 = { t: 'acme', s: 's-42', c: 'cmd-1', a: 'key:abc', o: '2026-03-01T12:34:56.789Z', r: 'corr', v: 2 };
    expect(decodeMetadata(JSON.stringify(v1), 'session:zzz:yyy')).toEqual({
      tenantId: 'acme',
      sessionId: 's-42',
      commandId: 'cmd-1',
      causationId: null,
      correlationId: 'corr',
      actor: 'key:abc',
      occurredAt: '2026-03-01T12:34:56.789Z',
      schemaVersion: 2,
    });
    expect(decodeMetadata(v1, 'x')).toMatchObject({ tenantId: 'acme', sessionId: 's-42' });
  });

  it('round-trips any metadata on any stream id', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            tenantId: fc.oneof(fc.constant('t'), fc.string()),
            sessionId: fc.oneof(fc.constant('s'), fc.constant(''), fc.string()),
            commandId: fc.oneof(fc.uuid(), fc.uuid({ version: 7 }), fc.string()),
            causationId: fc.option(fc.oneof(fc.uuid(), fc.string())),
            correlationId: fc.oneof(fc.uuid(), fc.string()),
            actor: fc.string(),
            occurredAt: fc.oneof(
              fc.date({ min: new Date(-8e15), max: new Date(8e15), noInvalidDate: true }).map((d) => d.toISOString()),
              fc.integer({ min: 0, max: 2 ** 48 - 1 }).map((ms) => new Date(ms).toISOString()),
              fc.string(),
            ),
            schemaVersion: fc.integer({ min: 0, max: 5 }),
            traceparent: fc.oneof(sampledTraceparent, fc.string()),
          },
          { requiredKeys: ['tenantId', 'sessionId', 'commandId', 'causationId', 'correlationId', 'actor', 'occurredAt', 'schemaVersion'] },
        ),
        fc.oneof(fc.constantFrom('session:t:s', 'tool:t:x', 'session:t:', 'x'), fc.string()),
        (m, streamId) => {
          expect(decodeMetadata(encodeMetadata(m, streamId), streamId)).toEqual(m);
        },
      ),
      { numRuns: 2000 },
    );
    expect(expandUuid(compactUuid('ffffffff-0000-4000-8000-000000000001')!)).toBe('ffffffff-0000-4000-8000-000000000001');
  });

  it('keeps a sampled traceparent as 32 base64url characters (39 bytes with its key), any other as it is', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const plain = encodeMetadata(base, 'session:acme:s-42');
    const traced = encodeMetadata({ ...base, traceparent }, 'session:acme:s-42');
    expect(JSON.parse(traced).p).toHaveLength(32);
    expect(Buffer.byteLength(traced) - Buffer.byteLength(plain)).toBe(39);
    expect(decodeMetadata(traced, 'session:acme:s-42')).toEqual({ ...base, traceparent });
    for (const other of ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'x']) {
      expect(compactTraceparent(other)).toBeNull();
      expect(JSON.parse(encodeMetadata({ ...base, traceparent: other }, 'session:acme:s-42'))).toMatchObject({ P: other });
    }
    fc.assert(
      fc.property(sampledTraceparent, (t) => {
        expect(expandTraceparent(compactTraceparent(t)!)).toBe(t);
      }),
    );
  });

  it('expands compact UUIDs and formats times exactly as Buffer and Date do', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.integer({ min: 0, max: 86_400_000 * 3 }), (uuid, ms, step) => {
        expect(expandUuid(compactUuid(uuid)!)).toBe(uuid);
        expect(Buffer.from(compactUuid(uuid)!, 'base64url').toString('hex')).toBe(uuid.replace(/-/g, ''));
        // Twice in a row: the second call may use the cached day.
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
        const next = Math.min(ms + step, 8.64e15);
        expect(isoTime(next)).toBe(new Date(next).toISOString());
      }),
      { numRuns: 5000 },
    );
    for (const ms of [0, -1, 86_399_999, 86_400_000, -86_400_000, 1_700_000_000_000, 253_402_300_799_999, 253_402_300_800_000, 1.5]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
