import type { ScoredItem } from './vector-index';

/**
 * Speaker focus: in a transcript kept as messages labelled by their speaker (`Melanie: …`, after an
 * optional `[date]` stamp: a group chat, a meeting, an imported conversation), a question naming one
 * of the speakers ("What musical artists has Melanie seen?") is answered by that speaker's own
 * messages: on LoCoMo, 96 % of the evidence of such questions, against half of recall's top 50.
 * Items without such a label, and questions naming no labelled speaker (or every one of them), are
 * left as they are.
 */
const LABEL = /^\s*(?:\[[^\]\n]{1,80}\]\s*)?([\p{Lu}][\p{L}'’.-]*(?: [\p{Lu}][\p{L}'’.-]*){0,2}):\s/u;

/** The speaker a message is labelled with (`[stamp] Name: text` or `Name: text`), or null. */
export function speakerOf(text: string): string | null {
  return LABEL.exec(text)?.[1] ?? null;
}

/** The labelled speakers among `speakers` the question names (by any word of the name, as a whole word, case-sensitive). */
export function speakersNamed(question: string, speakers: Iterable<string>): Set<string> {
  const words = new Set(question.match(/[\p{L}\p{N}]+/gu) ?? []);
  const named = new Set<string>();
  for (const speaker of speakers) if (speaker.split(/[ .'’-]+/).some((part) => part.length > 1 && words.has(part))) named.add(speaker);
  return named;
}

/**
 * Each candidate labelled with a speaker the question names has its score raised by `weight` of
 * itself (re-sorted): a proportional gain, so another speaker's decisive match stays ahead of the
 * named speaker's weak ones (a question that names the wrong person still finds it). Unchanged when
 * the question names none of the candidates' speakers, or all of them.
 */
export function favourSpeaker(query: string, ranked: readonly ScoredItem[], weight: number): ScoredItem[] {
  if (weight <= 0 || ranked.length < 2) return [...ranked];
  const speakers = ranked.map((hit) => speakerOf(hit.item.text));
  const named = speakersNamed(query, new Set(speakers.filter((s): s is string => s !== null)));
  if (named.size === 0 || named.size === new Set(speakers.filter((s) => s !== null)).size) return [...ranked];
  return ranked
    .map((hit, i) => ({ hit: named.has(speakers[i] ?? '') ? { ...hit, score: hit.score * (1 + weight) } : hit, i }))
    .sort((a, b) => b.hit.score - a.hit.score || a.i - b.i)
    .map(({ hit }) => hit);
}

/** The hits labelled with a speaker the question names; all of them when it names none, or every labelled speaker among them. */
export function ofNamedSpeaker(query: string, hits: readonly ScoredItem[]): ScoredItem[] {
  const speakers = hits.map((hit) => speakerOf(hit.item.text));
  const labelled = new Set(speakers.filter((s): s is string => s !== null));
  const named = speakersNamed(query, labelled);
  if (named.size === 0 || named.size === labelled.size) return [...hits];
  return hits.filter((_, i) => named.has(speakers[i] ?? ''));
}
