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

  get phrasesLongestFirst(): readonly string[] {
    return this.phrases;
  }

  isFillerWord(word: string): boolean {
    return this.words.has(word);
  }

  constructor(options: LowInformationOptions = {}) {
    this.words = new Set((options.fillerWords ?? DEFAULT_FILLER_WORDS).map((w) => w.toLowerCase()));
    this.phrases = [...(options.fillerPhrases ?? DEFAULT_FILLER_PHRASES)].sort((a, b) => b.length - a.length);
    this.minChars = options.minChars ?? 2;
  }

  /** True when the text is not worth indexing. */
  isLowInformation(text: string): boolean {
    const normalized = spokenPart(text).normalize('NFKC').toLowerCase();
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

/** Latin words that carry little on their own (function words, and the small talk of a chat). */
const SMALL_TALK = new Set(
  `a an and are as at be but by can did do does for from had has have he her him his how i i'm if in into is it it's its just me my no not of on or our she so that that's the their them then there these they this to too us was we were what when where which who why will with would you you're your
  also really totally definitely absolutely exactly indeed agreed same glad happy hear heard sounds sound love lovely amazing wonderful take care soon talk catch up keep going let know see`.split(
    /\s+/,
  ),
);
const SMALL_TALK_PHRASES = ['保重', '加油', '太好了', '真棒', '厉害', '当然', '一定', '同意', '确实', '我也是', '回头聊', '下次聊'];

/**
 * How much a text's words can tell a question, from 0.5 (small talk: "Take care!", "That sounds
 * amazing!", "保重！") to 1 (four words or more of its own, six CJK characters). Recall weighs
 * hits by it: acknowledgements crowd the top hits otherwise, being near every vague question.
 */
export function informationWeight(text: string, filter: LowInformationFilter = DEFAULT_FILTER): number {
  const normalized = spokenPart(text).normalize('NFKC').toLowerCase();
  let cjk = (normalized.match(CJK_RUN) ?? []).join('');
  for (const phrase of [...SMALL_TALK_PHRASES, ...filter.phrasesLongestFirst]) cjk = cjk.split(phrase).join('');
  const words = normalized
    .replace(CJK_RUN, ' ')
    .split(/[^\p{L}\p{N}']+/u)
    .filter((w) => w.length > 0 && !SMALL_TALK.has(w) && !filter.isFillerWord(w));
  const content = words.length + cjk.length / 1.5;
  return content >= 4 ? 1 : 0.5 + content / 8;
}

/**
 * A transcript line's spoken part: without a leading `[time]` stamp and `Speaker:` label, which say
 * nothing about what was said ("[8 May, 2023] Ana: Thanks!" is a thank-you).
 */
export function spokenPart(text: string): string {
  return text.replace(/^\s*\[[^\]\n]{1,60}\]\s*/u, '').replace(/^[\p{Lu}][\p{L}'. -]{0,30}:\s+/u, '');
}

export function containsCjk(text: string): boolean {
  return CJK.test(text);
}

const DEFAULT_FILTER = new LowInformationFilter();
