/**
 * Which embedding space a text belongs in, by its script alone: cheap (one pass, no model, no
 * dictionary) and stable for the short turns memory indexes, where statistical detectors
 * (trigram profiles) are unreliable. Only what the catalogued models can tell apart matters:
 * Chinese, or everything else (the English default).
 */
export type TextLanguage = 'zh' | 'en';

/** Han ideographs (CJK Unified Ideographs and their extensions, compatibility ideographs). */
const HAN = /\p{Script=Han}/u;
/** A run of letters of any other script (a Latin, Cyrillic, kana or Hangul word). */
const OTHER_WORD = /[\p{L}\p{M}]+/gu;

/**
 * `zh` when Han characters make up at least half of the text's units, where each Han character
 * is one unit and each word of another script is one unit (a Han character carries about what a
 * word does: "我在用 React 写前端" is Chinese, "I met 王明 at the station" English). Digits,
 * punctuation and emoji do not count; a text with no letters at all is `en`.
 */
export function detectLanguage(text: string): TextLanguage {
  let han = 0;
  let other = 0;
  for (const word of text.match(OTHER_WORD) ?? []) {
    // A run may mix Han and other letters (no space between them): count each part.
    let inOther = false;
    for (const char of word) {
      if (HAN.test(char)) {
        han++;
        inOther = false;
      } else if (!inOther) {
        other++;
        inOther = true;
      }
    }
  }
  return han > 0 && han >= other ? 'zh' : 'en';
}
