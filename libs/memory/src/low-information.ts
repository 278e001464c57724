/**
 * Data minimisation (seed 003): greetings, thanks and acknowledgements carry nothing worth
 * recalling, so they are never indexed. A text is low-information when, once lower-cased and
 * stripped of punctuation, every Latin word is a filler word and nothing is left of the CJK
 * part after removing the filler phrases.
 */
export interface LowInformationOptions {
  /** Latin-script filler words; a text made only of these is dropped. */
  fillerWords?: readonly string[];
  /** CJK filler phrases (matched anywhere, longest first). */
  fillerPhrases?: readonly string[];
  /** Texts with fewer meaningful characters than this are dropped (default 2). */
  minChars?: number;
}

export const DEFAULT_FILLER_WORDS: readonly string[] = [
  'hi',
  'hello',
  'hey',
  'hiya',
  'yo',
  'morning',
  'evening',
  'good',
  'night',
  'afternoon',
  'thanks',
  'thank',
  'you',
  'thx',
  'ty',
  'cheers',
  'much',
  'very',
  'so',
  'a',
  'lot',
  'ok',
  'okay',
  'k',
  'kk',
  'yes',
  'yeah',
  'yep',
  'yup',
  'no',
  'nope',
  'sure',
  'fine',
  'alright',
  'right',
  'bye',
  'goodbye',
  'see',
  'ya',
  'later',
  'cool',
  'great',
  'nice',
  'awesome',
  'perfect',
  'wow',
  'got',
  'it',
  'understood',
  'noted',
  'np',
  'lol',
  'haha',
  'hmm',
  'um',
  'uh',
  'oh',
  'ah',
  'please',
  'welcome',
  'the',
  'there',
];

export const DEFAULT_FILLER_PHRASES: readonly string[] = [
  '你好',
  '您好',
  '大家好',
  '早上好',
  '晚上好',
  '晚安',
  '嗨',
  '哈喽',
  '在吗',
  '谢谢你',
  '谢谢您',
  '谢谢',
  '多谢',
  '感谢',
  '不客气',
  '不用谢',
  '好的',
  '好吧',
  '好',
  '行',
  '可以',
  '嗯嗯',
  '嗯',
  '哦',
  '噢',
  '啊',
  '哈哈',
  '呵呵',
  '是的',
  '对的',
  '对',
  '没错',
  '收到',
  '明白了',
  '明白',
  '知道了',
  '了解',
  '没问题',
  '再见',
  '拜拜',
  '回头见',
  '了',
  '吧',
  '呢',
  '呀',
  '啦',
];

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+/gu;

export class LowInformationFilter {
  private readonly words: ReadonlySet<string>;
  private readonly phrases: readonly string[];
  private readonly minChars: number;

  constructor(options: LowInformationOptions = {}) {
    this.words = new Set((options.fillerWords ?? DEFAULT_FILLER_WORDS).map((w) => w.toLowerCase()));
    this.phrases = [...(options.fillerPhrases ?? DEFAULT_FILLER_PHRASES)].sort((a, b) => b.length - a.length);
    this.minChars = options.minChars ?? 2;
  }

  /** True when the text is not worth indexing. */
  isLowInformation(text: string): boolean {
    const normalized = text.normalize('NFKC').toLowerCase();
    let cjk = (normalized.match(CJK_RUN) ?? []).join('');
    for (const phrase of this.phrases) cjk = cjk.split(phrase).join('');
    const latin = normalized
      .replace(CJK_RUN, ' ')
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 0);
    const meaningfulLatin = latin.filter((w) => !this.words.has(w));
    const meaningfulChars = cjk.length + meaningfulLatin.join('').length;
    if (meaningfulChars === 0) return true;
    return cjk.length + latin.join('').length < this.minChars;
  }
}

export function containsCjk(text: string): boolean {
  return CJK.test(text);
}
