import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, type EffectDescriptor } from './effects';
import { DomainError } from './errors';
import { validateEffectDeclaration } from './tool-registration';

/** The rules a tool's effect must meet, at registration (PUT /v1/tools/:name) and on each call that declares one. */
function refusal(effect: EffectDescriptor): DomainError {
  try {
    validateEffectDeclaration('book_hotel', effect);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(effect)}`);
}

const cancel = { channel: 'http', target: 'https://hotel.example/bookings/{{output.bookingId}}/cancel' } as const;

describe('validateEffectDeclaration', () => {
  it('accepts an effect that can be undone, or that needs no undoing', () => {
    for (const effect of [
      { kind: 'none' },
      { kind: 'irreversible' },
      { kind: 'reversible', compensation: cancel },
      { kind: 'compensable', compensation: { channel: 'kafka', target: 'corrections', payload: { to: '{{ input.to }}' } }, retry: DEFAULT_RETRY_POLICY },
      { kind: 'reversible', compensation: cancel, retry: { maxAttempts: 1, baseDelayMs: 100, maxDelayMs: 100, timeoutMs: 1 } },
    ] satisfies EffectDescriptor[]) {
      expect(() => validateEffectDeclaration('book_hotel', effect), JSON.stringify(effect)).not.toThrow();
    }
  });

  it('compensation_missing: a reversible or compensable effect must say how to undo it', () => {
    for (const kind of ['reversible', 'compensable'] as const) {
      const error = refusal({ kind });
      expect(error).toMatchObject({ kind: 'validation', code: 'compensation_missing', details: [{ field: 'compensation' }] });
      expect(error.message).toContain('PUT /v1/tools/book_hotel');
    }
  });

  it('compensation_template_invalid: every malformed reference is named, the first in the message', () => {
    const error = refusal({
      kind: 'reversible',
      compensation: { channel: 'inline', target: 'cancel/{{booking}}', payload: { a: '{{output.id}}', b: ['{{}}', '{{input..x}}'] } },
    });
    expect(error).toMatchObject({ kind: 'validation', code: 'compensation_template_invalid' });
    expect(error.details.map((d) => d.field)).toEqual(['compensation.target', 'compensation.payload.b[0]', 'compensation.payload.b[1]']);
    expect(error.message).toContain('{{booking}}');
  });

  it('an irreversible effect with a compensation still has its template checked', () => {
    expect(refusal({ kind: 'irreversible', compensation: { channel: 'inline', target: '{{nope}}' } }).code).toBe('compensation_template_invalid');
  });

  it('validation_failed: a retry base delay above its cap', () => {
    const error = refusal({ kind: 'reversible', compensation: cancel, retry: { maxAttempts: 3, baseDelayMs: 101, maxDelayMs: 100, timeoutMs: 1 } });
    expect(error).toMatchObject({ kind: 'validation', code: 'validation_failed', details: [{ field: 'retry.baseDelayMs' }] });
  });
});
