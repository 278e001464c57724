const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+/gu;

/** Words too common to help a keyword search (English; CJK bigrams rarely are). */
const STOP_WORDS = new Set(
  'a an and are as at be but by did do does for from had has have he her his how i if in into is it its me my no not of on or our she so that the their them then there these they this to us was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/**
 * The words a keyword index sees: lower-case Latin words and numbers, and CJK text as
 * overlapping character bigrams (Chinese has no spaces; bigrams find words of any length
 * without a dictionary). The same function prepares documents and queries.
 */
export function searchTokens(text: string, options: { dropStopWords?: boolean } = {}): string[] {
  const normalized = text.normalize('NFKC').toLowerCase();
  const tokens: string[] = [];
  for (const run of normalized.match(CJK_RUN) ?? []) {
    const chars = [...run];
    if (chars.length === 1) tokens.push(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i]! + chars[i + 1]!);
  }
  for (const word of normalized.replace(CJK_RUN, ' ').split(/[^\p{L}\p{N}]+/u)) {
    if (word.length === 0) continue;
    if (options.dropStopWords && STOP_WORDS.has(word)) continue;
    tokens.push(word);
  }
  return tokens;
}
