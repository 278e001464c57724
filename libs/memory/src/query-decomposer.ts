import { containsCjk } from './low-information';
import { isDate, NOT_ENTITIES } from './deterministic-rewriter';
import { asksForInference, asksForList } from './recall-question';

/**
 * Splits a question whose evidence lies in several places ("What do Jon and Gina both like?", "Who
 * did Evan meet in Canada, and who did he come back with?", "When did Maria adopt a dog after she
 * moved?") into sub-questions, each searched on its own (recall-decomposition.ts). An empty list: the
 * question is asked as it is. Optional LLM decomposers implement the same port (none ships: off by default).
 */
export interface QueryDecomposer {
  decompose(question: string): Promise<string[]>;
}

/** Asks every question as it is. */
export const NO_DECOMPOSER: QueryDecomposer = { decompose: async () => [] };

/** Sub-questions kept at most: each costs one more embedding and search pair. */
export const MAX_SUB_QUESTIONS = 3;

const WH = 'who|whom|whose|what|when|where|why|how|which';
const AUX = 'did|does|do|is|are|was|were|has|have|had';
/** ", and who did he …", "; did she …", "… and why": a second question joined to the first ("loves and can make" is one). */
const CLAUSE_JOIN = new RegExp(`\\s*(?:[,;]\\s*(?:and|but|or)?\\s*(?=(?:${WH}|${AUX})\\b)|\\s(?:and|but)\\s+(?:also\\s+)?(?=(?:${WH})\\b))`, 'i');
/** Relations in time between two events ("… after she moved", "… before the trip"): each event is its own evidence. */
const TIME_RELATION = /\s+(after|before|since|until|while|once)\s+(?=\S)/i;
/** What a question sets aside ("besides basketball"): its words pull towards what is not asked. */
const SET_ASIDE = /\s+(?:besides|apart from|aside from|except(?: for)?|other than)\s+[^,?;]+/i;
/** Comparisons ("more than", "rather than"): each side is its own evidence. */
const COMPARISON = /\s+(?:more|less|better|worse|rather|other)\s+than\s+/i;
const SUBJECT_PRONOUN = /\b(he|she|they|him|her|them|his|hers|their|theirs)\b/gi;
/** Words too empty to make a sub-question of their own. */
const EMPTY = new Set('a an the of to in on at for with by and or but others other one ones it that this these those them their there here ever'.split(' '));

/** Words of substance in a phrase (not function words, not the question words). */
const QUESTION_WORD = new RegExp(`^(?:${WH}|${AUX})$`);
function substance(phrase: string): string[] {
  return (phrase.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !EMPTY.has(w) && !QUESTION_WORD.test(w));
}

/**
 * The names a question holds: runs of capitalised words, not its first word (capitalised as any
 * sentence's), nor question words, nor dates; a possessive's "'s" dropped ("Tim's" → "Tim").
 */
export function namesIn(question: string): string[] {
  const names: string[] = [];
  for (const match of question.matchAll(/[\p{Lu}][\p{L}\p{N}'’-]*(?:\s+[\p{Lu}][\p{L}\p{N}'’-]*)*/gu)) {
    const words = match[0].split(/\s+/);
    if (match.index === question.search(/\S/)) words.shift();
    const kept = words.map((w) => w.replace(/['’]s$/, '')).filter((w) => w.length > 0 && !NOT_ENTITIES.has(w));
    if (kept.length > 0 && !isDate(kept.join(' '))) names.push(kept.join(' '));
  }
  return names;
}

/** Pronouns of a later part read as the question's first named entity ("he" → "Evan", "his" → "Evan's"). */
function resolvePronouns(part: string, entity: string | undefined): string {
  if (!entity) return part;
  return part.replace(SUBJECT_PRONOUN, (pronoun) => (/^(?:his|hers|their|theirs)$/i.test(pronoun) || pronoun.toLowerCase() === 'her' ? `${entity}'s` : entity));
}

/** "Jon and Gina", "Jon, Gina and Maria", "both Jon and Gina": two or more named entities joined. */
function namedTogether(question: string, entities: readonly string[]): string | null {
  if (entities.length < 2) return null;
  const names = entities.map((e) => e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const joined = new RegExp(`(?:\\bboth\\s+)?(?:${names})(?:(?:\\s*,\\s*|\\s+(?:and|or|&)\\s+|\\s*,\\s*(?:and|or)\\s+)(?:${names}))+`, 'u');
  return joined.exec(question)?.[0] ?? null;
}

/**
 * The deterministic decomposer (default): no model, the same answer every time, English only (a
 * question in another language is asked as it is). Rules, each generic: two named people or things
 * joined ("Jon and Gina", "both …") give one sub-question each; questions joined by a comma or "and"
 * ("…, and who did he …") are split, later pronouns read as the first name; a relation in time ("when
 * … after …") and a comparison ("more than") give each side; a set-aside ("besides basketball") is
 * dropped from a sub-question.
 */
export class DeterministicDecomposer implements QueryDecomposer {
  private readonly options: DecomposerRules;

  constructor(options: DecomposerRules = {}) {
    this.options = options;
  }

  async decompose(question: string): Promise<string[]> {
    return decomposeQuestion(question, this.options);
  }
}

export interface DecomposerRules {
  /** Sub-questions at most (default MAX_SUB_QUESTIONS). */
  max?: number;
  /**
   * A question about one named person that asks for several things or for an inference ("What
   * activities has Lena done?", "What might Omar's job be?") also asked without the name: the facet
   * alone, whose evidence ("pottery", "camping") shares the facet's meaning but not the name, which
   * every message of that person's carries and so decides nothing among them (default false).
   */
  facets?: boolean;
}

export function decomposeQuestion(question: string, rules: DecomposerRules = {}): string[] {
  const max = rules.max ?? MAX_SUB_QUESTIONS;
  if (containsCjk(question) || !/[a-z]/i.test(question)) return [];
  const trimmed = question.trim();
  const entities = namesIn(trimmed);
  const first = entities[0];
  const parts: string[] = [];

  const together = namedTogether(trimmed, entities);
  if (together) {
    const named = entities.filter((e) => together.includes(e));
    for (const entity of named)
      parts.push(
        trimmed
          .replace(together, entity)
          .replace(/\s+both\b|\bin common\b/gi, '')
          .replace(/\s{2,}/g, ' '),
      );
  }

  const clauses = trimmed.split(CLAUSE_JOIN).filter((c) => c.trim().length > 0);
  if (clauses.length > 1) clauses.forEach((clause, i) => parts.push(i === 0 ? clause : resolvePronouns(clause, first)));

  const time = TIME_RELATION.exec(trimmed);
  // "before August 3" places the question in time (the date stamps' work), "before the trip" names another event.
  if (time && time.index > 0 && !isDate(trimmed.slice(time.index + time[0].length).split(/[\s,]+/)[0] ?? '')) {
    const [head, tail] = [trimmed.slice(0, time.index), trimmed.slice(time.index + time[0].length)];
    parts.push(head, resolvePronouns(tail, first));
  }

  const comparison = COMPARISON.exec(trimmed);
  if (comparison && comparison.index > 0) {
    parts.push(trimmed.slice(0, comparison.index), resolvePronouns(trimmed.slice(comparison.index + comparison[0].length), first));
  }

  const setAside = SET_ASIDE.exec(trimmed);
  if (setAside) parts.push(trimmed.replace(setAside[0], ''));

  if (rules.facets && entities.length === 1 && (asksForList(trimmed) || asksForInference(trimmed))) {
    const name = entities[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    parts.push(trimmed.replace(new RegExp(`\\s*\\b${name}(?:['’]s)?\\b`, 'gu'), '').replace(/\s{2,}/g, ' '));
  }

  const seen = new Set([normalise(trimmed)]);
  const kept: string[] = [];
  for (const part of parts) {
    const text = part.replace(/^[\s,;]+|[\s,;]+$/g, '').replace(/\s+([?.!])/g, '$1');
    const key = normalise(text);
    // A part must say something of its own (two words of substance, or one beside a name).
    const words = substance(text);
    if (seen.has(key) || words.length < 2) continue;
    seen.add(key);
    kept.push(text);
    if (kept.length >= max) break;
  }
  return kept;
}

function normalise(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}
