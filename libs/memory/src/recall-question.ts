/** How recall fuses its keyword and vector lists: a convex combination of normalised scores, or reciprocal rank fusion. */
export type FusionOptions = { method: 'convex'; denseWeight: number } | { method: 'rrf'; k: number };

/**
 * Questions that ask for an inference ("Would Melanie prefer a national park?", "What might John's
 * financial status be?") share few words with the turns that answer them: the answer is inferred
 * from what was said about something else. Meaning (vectors) then counts for more than words.
 * English only, like the stop words.
 */
const SPECULATIVE = /^\s*(?:would|could|might)\b|\b(?:likely|probably|might|would)\b/i;

export function asksForInference(query: string): boolean {
  return SPECULATIVE.test(query);
}

/** The fusion for this question: a convex fusion's dense weight raised to `inferenceDenseWeight` for a question asking for an inference. */
export function fusionFor(query: string, fusion: FusionOptions, inferenceDenseWeight: number): FusionOptions {
  if (fusion.method !== 'convex' || inferenceDenseWeight <= fusion.denseWeight || !asksForInference(query)) return fusion;
  return { method: 'convex', denseWeight: inferenceDenseWeight };
}

/**
 * Questions asking for several things ("What activities does Melanie do?", "What do Jon and Gina
 * both have in common?", "How many children…"), whose answers are spread over a conversation.
 */
const LIST =
  /\b(?:both|in common|kinds? of|types? of|how many|(?:what|which) (?:\w+ )?(?:activities|things|items|books|events|places|hobbies|sports|games|pets|instruments|countries|cities|people|recipes|foods|ways|symbols|artists|bands|songs|movies|shows|exercises))\b/i;

export function asksForList(query: string): boolean {
  return LIST.test(query);
}
