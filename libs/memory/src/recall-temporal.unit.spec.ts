import { describe, expect, it } from 'vitest';
import { asksWhen, saysWhen } from './recall-temporal';

describe('questions asking when, and turns saying when', () => {
  it('tells a question asking when from others', () => {
    expect(asksWhen('When did Caroline go to the adoption meeting?')).toBe(true);
    expect(asksWhen('Which year did Audrey adopt her first dogs?')).toBe(true);
    expect(asksWhen('How long ago was Melanie’s trip?')).toBe(true);
    expect(asksWhen('What activities does Melanie partake in?')).toBe(false);
    expect(asksWhen('Whenever I cook, what should I add?')).toBe(false);
    expect(asksWhen('How long is the trail?')).toBe(false);
  });

  it('tells a turn placing something in time from one that does not', () => {
    expect(saysWhen('I went to a pottery class last Friday')).toBe(true);
    expect(saysWhen('We adopted him two weeks ago.')).toBe(true);
    expect(saysWhen('Yesterday was great')).toBe(true);
    expect(saysWhen('We moved here back in 2019')).toBe(true);
    expect(saysWhen('I love the pottery class, it is so calming')).toBe(false);
    // A modal "may" and a date stamp's bare month are not "when" phrases.
    expect(saysWhen('[1:56 pm on 8 May, 2023] Caroline: It may rain')).toBe(false);
  });
});
