import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRoute } from './hooks';
import { duration, STEP_KINDS, stepMatches } from './timeline-model';
import type { TimelineNode } from './api/types';

const node = (type: string, summary: string | null): TimelineNode =>
  ({ version: 2, parentVersion: 1, type, summary, occurredAt: null }) as unknown as TimelineNode;

describe('finding steps on the timeline', () => {
  it('property: a step matches a text its summary holds, whatever the case, and never one it does not hold', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ]{0,20}$/), fc.stringMatching(/^[a-z]{1,6}$/), (summary, text) => {
        const said = node('UserMessageReceived', summary);
        expect(stepMatches(said, '', text.toUpperCase())).toBe(summary.includes(text) || 'usermessagereceived'.includes(text) || 'user'.includes(text));
      }),
    );
  });

  it('property: a kind keeps exactly the steps of its event types', () => {
    const types = [...new Set(STEP_KINDS.flatMap((k) => k.types)), 'SessionStarted', 'CheckpointCreated'];
    fc.assert(
      fc.property(fc.constantFrom(...STEP_KINDS), fc.constantFrom(...types), (kind, type) => {
        expect(stepMatches(node(type, 'anything'), kind.id, '')).toBe(kind.types.includes(type));
      }),
    );
    expect(stepMatches(undefined, '', '')).toBe(false);
  });

  it('says the time between two steps in the largest fitting unit, and nothing for an unknown or backward time', () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    expect(duration(at(0), at(850))).toBe('+850 ms');
    expect(duration(at(0), at(2_400))).toBe('+2.4 s');
    expect(duration(at(0), at(42_000))).toBe('+42 s');
    expect(duration(at(0), at(180_000))).toBe('+3 min');
    expect(duration(at(0), at(7_200_000))).toBe('+2 h');
    expect(duration(at(0), at(3 * 86_400_000))).toBe('+3 d');
    expect(duration(null, at(1))).toBeNull();
    expect(duration(at(5), at(1))).toBeNull();
  });
});

describe('routes in the hash', () => {
  it('property: view params never change the page a hash names', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9-]{1,12}$/),
        fc.dictionary(fc.constantFrom('step', 'branch', 'tab', 'from', 'to', 'rollback'), fc.stringMatching(/^[a-z0-9~]{1,8}$/)),
        (id, params) => {
          const search = new URLSearchParams(params).toString();
          expect(parseRoute(`#/sessions/${id}${search ? `?${search}` : ''}`)).toEqual({ page: 'session', sessionId: id });
          expect(parseRoute(`#/audit/${id}${search ? `?${search}` : ''}`)).toEqual({ page: 'audit', sessionId: id });
        },
      ),
    );
    expect(parseRoute('#/?step=3')).toEqual({ page: 'sessions' });
  });
});
