import { containsCjk } from './low-information';
import type { QueryRewriter, RecentMessage, RewriteResult } from './query-rewriter';

const EN_PRONOUN = /\b(it|its|it's|they|them|their|theirs|he|him|his|she|her|hers)\b/i;
const EN_ELLIPSIS = /^\s*(?:and\s+|so\s+)?(?:what|how)\s+about\s+(.+?)\s*[?？!.]*\s*$/i;
const ZH_PRONOUN = /(它们的|它的|它们|它|他们的|她们的|他的|她的|他们|她们|他|她|那里|那儿|这里|这儿|那个|这个|那家|这家|那些|这些|该)/u;
const ZH_ELLIPSIS = /^\s*(?:那么?|那)?(.+?)呢\s*[?？]?\s*$/u;

/** Words that start sentences or are capitalised without naming anything ("On which street is it?" names no street). */
export const NOT_ENTITIES = new Set(
  "I I'm I've I'll I'd The A An And But Or So Then What When Where Which Who Why How Is Are Was Were Do Does Did Can Could Would Should Will Please Yes No Ok Okay Thanks Thank Hi Hello Hey Let Let's It It's Its They This That These Those There We You He She My Our Your Their Also Sure Great Good Fine Done Sorry Also Just Book Find Show Tell Give Get Make Remember On In At For From With About By To Of Into Since Until After Before During".split(
    ' ',
  ),
);

/** Dates name a time, never what a pronoun stands for ("her family" is never "October's family"). */
const DATE_WORD =
  /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|yesterday|am|pm|\d+(?:st|nd|rd|th)?|\d{1,2}:\d{2})$/i;
const ZH_DATE = /^[\d〇零一二三四五六七八九十百]+[年月日号点时分]|^(?:星期|周|礼拜)[一二三四五六日天]$|^(?:今天|明天|昨天|上午|下午|晚上)$/u;

export function isDate(entity: string): boolean {
  return entity.split(/[\s,]+/).every((word) => word.length === 0 || DATE_WORD.test(word)) || ZH_DATE.test(entity);
}

/** Chinese characters and words that never make an entity on their own. */
const ZH_BREAKS =
  /(?:我们|你们|他们|她们|它们|什么|怎么|多少|哪里|哪个|哪家|一下|一个|一家|可以|需要|想要|已经|还是|或者|因为|所以|但是|如果|请问|帮我|给我|预订|订了|订|我|你|您|他|她|它|的|了|在|是|和|与|跟|去|到|从|把|被|给|吗|呢|吧|啊|呀|想|要|有|这|那|个|请|帮|也|都|就|还|很|再|又|多|少|几|哪|谁|为|对|会|能|让|用|做|说|问|看|[，。？！、；：“”‘’（）《》\s\d])+/u;

/**
 * The salient entities of recent turns, most salient first: capitalised names and quoted
 * terms (English), and the content runs left between function words (Chinese). Newer turns
 * and repeated mentions weigh more.
 */
export function salientEntities(messages: readonly RecentMessage[]): string[] {
  const scores = new Map<string, number>();
  messages.forEach((message, index) => {
    // Halves with each older message: what the newest turns talk about is what "it" means,
    // even when an older topic was mentioned more often.
    const recency = 0.5 ** (messages.length - 1 - index);
    const weight = (message.role === 'user' ? 1.2 : 1) * recency;
    for (const entity of entitiesOf(message.content)) scores.set(entity, (scores.get(entity) ?? 0) + weight);
  });
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([entity]) => entity);
}

export function entitiesOf(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/["“「『]([^"”」』]{2,40})["”」』]/gu)) found.push(match[1]!.trim());
  // Runs of capitalised words ("Hotel Avenida", "Lisbon"), a trailing number included ("Terminal 2").
  for (const match of text.matchAll(/\b[A-Z][\p{L}\d'-]*(?:\s+(?:de|da|do|of|la|le|van|von)?\s*[A-Z][\p{L}\d'-]*)*(?:\s+\d+\b)?/gu)) {
    const words = match[0].split(/\s+/).filter((w) => !NOT_ENTITIES.has(w));
    if (words.length > 0 && !isDate(words.join(' '))) found.push(words.join(' '));
  }
  if (containsCjk(text)) {
    for (const run of text.split(ZH_BREAKS)) {
      const candidate = run.trim();
      if (candidate.length >= 2 && candidate.length <= 8 && containsCjk(candidate) && !isDate(candidate)) found.push(candidate);
    }
  }
  return found;
}

function lastUserQuestion(messages: readonly RecentMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i]!.content;
  return undefined;
}

/**
 * The built-in rewriter: no model, no network, the same answer every time. It resolves
 * pronouns ("its price" → "Hotel Avenida's price", "它的价格" → "里斯本酒店的价格") to the
 * most salient entity of the recent turns ("go there" → "go to Hotel Avenida"), and ellipsis ("what about Porto?", "波尔图呢？")
 * by replaying the previous question about the new subject.
 */
export class DeterministicRewriter implements QueryRewriter {
  async rewrite(question: string, recent: readonly RecentMessage[]): Promise<RewriteResult> {
    const rewritten = rewriteQuestion(question, recent);
    return rewritten === question ? { query: question, rewriter: 'none' } : { query: rewritten, rewriter: 'deterministic' };
  }
}

export function rewriteQuestion(question: string, recent: readonly RecentMessage[]): string {
  const history = recent.filter((m) => m.content.trim() !== question.trim());
  if (history.length === 0) return question;
  const entities = salientEntities(history);
  const previous = lastUserQuestion(history);
  const chinese = containsCjk(question);

  const ellipsis = (chinese ? ZH_ELLIPSIS : EN_ELLIPSIS).exec(question);
  if (ellipsis && previous && !(chinese ? ZH_PRONOUN : EN_PRONOUN).test(ellipsis[1]!)) {
    const subject = ellipsis[1]!.trim();
    const replaced = salientEntities([{ role: 'user', content: previous }]).find((e) => previous.includes(e) && e !== subject);
    if (replaced) return previous.replace(replaced, subject);
    return `${previous} ${subject}`;
  }

  // A pronoun is unresolved only when the question names nothing it can stand for: "What has Rita
  // done with her family?" is about Rita, and is left as asked.
  // Chinese has no capitals to tell names from words: an entity named after the pronoun is what is
  // asked about it ("它的地址", "它几点开门"), only one named before it can be what it stands for.
  const pronounAt = chinese ? question.search(ZH_PRONOUN) : -1;
  if (entities.some((e) => question.includes(e) && (pronounAt < 0 || question.indexOf(e) < pronounAt))) return question;
  if (!chinese && entitiesOf(question).length > 0) return question;
  const entity = entities[0];
  if (!entity) return question;
  if (chinese) {
    if (!ZH_PRONOUN.test(question)) return question;
    return question.replace(ZH_PRONOUN, (pronoun) => (pronoun.endsWith('的') ? `${entity}的` : entity));
  }
  const motion = /\b(go|get|be|stay|arrive|going|getting|walk|drive)\s+there\b/gi;
  if (!EN_PRONOUN.test(question) && !motion.test(question)) return question;
  return question
    .replace(motion, (_, verb: string) => `${verb} to ${entity}`)
    .replace(new RegExp(EN_PRONOUN.source, 'gi'), (pronoun) => {
      const lower = pronoun.toLowerCase();
      if (['its', 'their', 'theirs', 'his', 'hers'].includes(lower)) return `${entity}'s`;
      if (lower === 'her') return `${entity}'s`;
      if (lower === "it's") return `${entity} is`;
      return entity;
    });
}
