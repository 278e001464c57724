import { describe, expect, it } from 'vitest';
import { informationWeight, LowInformationFilter, spokenPart } from './low-information';

describe('small talk', () => {
  it('reads a transcript line by what was said, not by its time stamp and speaker label', () => {
    expect(spokenPart('[1:56 pm on 8 May, 2023] Caroline: Thanks!')).toBe('Thanks!');
    expect(spokenPart('Caroline: I went to the support group')).toBe('I went to the support group');
    expect(new LowInformationFilter().isLowInformation('[1:56 pm on 8 May, 2023] Caroline: Thanks!')).toBe(true);
    expect(new LowInformationFilter().isLowInformation('[8 May, 2023] Caroline: I went to the LGBTQ support group')).toBe(false);
  });

  it('weighs acknowledgements less than turns with something to say, in English and Chinese', () => {
    expect(informationWeight('[8 May, 2023] Melanie: Take care!')).toBeLessThan(0.8);
    expect(informationWeight('That sounds amazing, I love it!')).toBeLessThan(0.8);
    expect(informationWeight('保重！加油！')).toBeLessThan(0.8);
    expect(informationWeight('[8 May, 2023] Caroline: I started shooting the video in Miami last week')).toBe(1);
    expect(informationWeight('我们订了里斯本的大酒店，五月三号入住')).toBe(1);
    expect(informationWeight('Take care!')).toBeGreaterThanOrEqual(0.5);
  });
});
