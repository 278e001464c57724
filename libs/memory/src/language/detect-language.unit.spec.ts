import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectLanguage } from './detect-language';

/** A Han ideograph of the CJK Unified Ideographs block. */
const han = fc.integer({ min: 0x4e00, max: 0x9fff }).map((code) => String.fromCodePoint(code));
const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) });

describe('detectLanguage (by script)', () => {
  it('takes a text of Han characters (with spaces, digits, CJK punctuation between them) for Chinese', () => {
    const filler = fc.constantFrom(' ', '，', '。', '？', '1', '2026', '、');
    fc.assert(
      fc.property(
        fc.array(fc.oneof(han, han, filler), { minLength: 1 }).filter((parts) => parts.some((p) => /\p{Script=Han}/u.test(p))),
        (parts) => {
          expect(detectLanguage(parts.join(''))).toBe('zh');
        },
      ),
    );
  });

  it('takes any ASCII text for English (the default model)', () => {
    fc.assert(
      fc.property(ascii, (text) => {
        expect(detectLanguage(text)).toBe('en');
      }),
    );
  });

  it('weighs a Han character like a word of another script', () => {
    expect(detectLanguage('我在用 React 和 TypeScript 写前端')).toBe('zh');
    expect(detectLanguage('它多少钱？')).toBe('zh');
    expect(detectLanguage('I met 王明 at the station yesterday')).toBe('en');
    expect(detectLanguage('Привет, как дела?')).toBe('en');
    expect(detectLanguage('')).toBe('en');
    expect(detectLanguage('12:30 → 13:45 !!')).toBe('en');
  });
});
