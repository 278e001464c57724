import { describe, expect, it } from 'vitest';
import { informationWeight, LowInformationFilter, spokenPart } from './low-information';

describe('small talk', () => {
  it('reads a transcript line by what was said, not by its time stamp and speaker label', () => {
    expect(spokenPart('[1:56 pm on 8 May, 2023] Ana: Thanks!')).toBe('Thanks!');
    expect(spokenPart('Ana: I went to the pottery class')).toBe('I went to the pottery class');
    expect(new LowInformationFilter().isLowInformation('[1:56 pm on 8 May, 2023] Ana: Thanks!')).toBe(true);
    expect(new LowInformationFilter().isLowInformation('[8 May, 2023] Ana: I went to the pottery class')).toBe(false);
  });

  it('weighs acknowledgements less than turns with something to say, in English and Chinese', () => {
    expect(informationWeight('[8 May, 2023] Rita: Take care!')).toBeLessThan(0.8);
    expect(informationWeight('That sounds amazing, I love it!')).toBeLessThan(0.8);
    expect(informationWeight('保重！加油！')).toBeLessThan(0.8);
    expect(informationWeight('[8 May, 2023] Ana: I started filming the video in Faro last week')).toBe(1);
    expect(informationWeight('我们订了里斯本的大酒店，五月三号入住')).toBe(1);
    expect(informationWeight('Take care!')).toBeGreaterThanOrEqual(0.5);
  });
});
