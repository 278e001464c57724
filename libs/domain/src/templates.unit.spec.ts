import { describe, expect, it } from 'vitest';
import type { CompensationSpec } from './effects';
import { fillCompensation, missingRefs, templateRefs, templateSyntaxProblems } from './templates';

/** Compensation templates: what decide checks a call's input and output against, and what the saga sends. */
const spec: CompensationSpec = {
  channel: 'http',
  target: 'https://hotel.example/{{input.city}}/bookings/{{ output.bookingId }}',
  payload: {
    booking: '{{output.bookingId}}',
    nights: '{{input.stay.nights}}',
    note: 'cancel {{output.bookingId}} for {{input.guest}}',
    tags: ['{{input.city}}'],
  },
};

describe('compensation templates', () => {
  it('lists each reference once, spaces inside the braces allowed', () => {
    expect(templateRefs(spec)).toEqual(['input.city', 'output.bookingId', 'input.stay.nights', 'input.guest']);
  });

  it('finds no syntax problem in references to input and output, and one per other brace pair', () => {
    expect(templateSyntaxProblems(spec)).toEqual([]);
    expect(templateSyntaxProblems({ channel: 'inline', target: '{{inputs.x}} {{ output }} {{output.a b}}' }).map((p) => p.field)).toEqual([
      'compensation.target',
      'compensation.target',
    ]);
  });

  it('missing references are looked up in the source asked for only', () => {
    const input = { city: 'Lisbon', stay: { nights: 2 } };
    expect(missingRefs(spec, 'input', { input })).toEqual(['input.guest']);
    expect(missingRefs(spec, 'input', { input: { ...input, guest: null } })).toEqual([]);
    expect(missingRefs(spec, 'output', { input: {}, output: { bookingId: 'B1' } })).toEqual([]);
    expect(missingRefs(spec, 'output', { input: {}, output: ['B1'] })).toEqual(['output.bookingId']);
    expect(missingRefs(spec, 'output', { input: {} })).toEqual(['output.bookingId']);
  });

  it('fills a lone reference with its JSON value and a reference inside text with its text', () => {
    expect(fillCompensation(spec, { input: { city: 'Lisbon', stay: { nights: 2 }, guest: { name: 'Ana' } }, output: { bookingId: 'B1' } })).toEqual({
      target: 'https://hotel.example/Lisbon/bookings/B1',
      payload: { booking: 'B1', nights: 2, note: 'cancel B1 for {"name":"Ana"}', tags: ['Lisbon'] },
    });
  });

  it('fills a missing reference with null, and gives no payload when the template has none', () => {
    expect(fillCompensation({ channel: 'kafka', target: 'cancel-{{output.id}}' }, { input: {}, output: null })).toEqual({
      target: 'cancel-null',
      payload: null,
    });
  });
});
