import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { MemoryScope } from '../vector-index';

/**
 * How the full-text index splits and reduces words (documents arrive as searchTokens' words):
 * Porter stemming over unicode61, so that "painted" finds "paints" (LoCoMo, BM25 alone on the
 * product's windows: R@10 68.3 → 72.5, R@25 75.9 → 80.3).
 */
export const TOKENIZER = 'porter unicode61 remove_diacritics 2';

/**
 * BM25 weight of the previous turn's words against the turn's own (1): the turn is what is
 * recalled, its previous turn only leads to it. Picked on LoCoMo conversations 1–5 (BM25 alone,
 * R@5/10/25 at 0.4 / 0.5 / 0.6 / 1: 66.6/74.3/80.7, 66.4/75.2/81.3, 67.0/75.6/81.8, 65.2/74.4/81.3),
 * 6–10: 63.0/72.5/80.2 at 0.6 against 61.4/70.7/79.4 as one text.
 */
export const CONTEXT_WEIGHT = 0.6;

/**
 * How long a scope's item count and a word's document frequency are reused to plan keyword
 * searches. They only pick a plan and the words searched: a stale figure changes what a search
 * costs, never whether a matching item can be found (a word not yet seen is never cached).
 */
export const PLAN_FIGURES_TTL_MS = 10_000;

/**
 * Documents keyword search ranks at most (FTS5 ranks every match: ~2.3 µs each at 100 000 items,
 * so ~7 ms). Words are taken rarest first, which BM25 weighs most; commoner ones beyond the
 * budget are left out, and when even the rarest is beyond it, vectors carry the question alone.
 */
export const MATCH_BUDGET = 3_000;

/**
 * A word naming a tenant or a session inside the FTS document, so that a scoped keyword
 * search intersects posting lists instead of ranking every match of the whole file.
 */
export function scopeToken(kind: 't' | 's', ...parts: string[]): string {
  return `zz${kind}${createHash('sha1').update(parts.join('\u0000')).digest('hex').slice(0, 20)}`;
}

/** Sessions' scope words, made once: two SHA-1s were ~13 µs of the ~90 µs an item's keyword stage costs. */
const scopeWordsCache = new LRUCache<string, string>({ max: 10_000 });

/** The scope column of an item's FTS row: its tenant's word and its session's. */
export function scopeWordsOf(item: { tenantId: string; sessionId: string }): string {
  const key = `${item.tenantId}\u0000${item.sessionId}`;
  let words = scopeWordsCache.get(key);
  if (words === undefined) scopeWordsCache.set(key, (words = `${scopeToken('t', item.tenantId)} ${scopeToken('s', item.tenantId, item.sessionId)}`));
  return words;
}

/** An FTS5 query matching any of the words (each word quoted: no FTS syntax reaches the parser), within the scope's word when given. */
export function ftsQuery(tokens: readonly string[], scopeWord: string | null, columns: string): string {
  const words = `${columns} : (${tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')})`;
  return scopeWord === null ? words : `${words} AND scope : ${scopeWord}`;
}

export function scopeWordOf(scope: MemoryScope): string {
  return scope.sessionId === undefined ? scopeToken('t', scope.tenantId) : scopeToken('s', scope.tenantId, scope.sessionId);
}

/** The tokenize option a full-text table was made with (a file made before stemming has none of Porter). */
export function tokenizerOf(createSql: string): string {
  return /tokenize\s*=\s*'([^']*)'/i.exec(createSql)?.[1] ?? 'unicode61';
}
