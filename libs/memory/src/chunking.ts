import { containsCjk } from './low-information';

export interface ChunkingOptions {
  /**
   * Largest chunk, in estimated tokens (default 200: small embedding models read 256 tokens
   * and silently cut the rest, so a longer text would be only partly searchable).
   */
  maxTokens?: number;
}

const CJK_CHAR = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/gu;

/** A rough token count: one per CJK character, one per four other characters. */
export function estimateTokens(text: string): number {
  const cjk = containsCjk(text) ? (text.match(CJK_CHAR) ?? []).length : 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

/**
 * Splits a long text into chunks of at most `maxTokens` estimated tokens, at sentence ends
 * where it can (a sentence longer than a chunk is cut at a space, or anywhere for CJK).
 * A short text is one chunk, unchanged.
 */
export function chunkText(text: string, options: ChunkingOptions = {}): string[] {
  const maxTokens = options.maxTokens ?? 200;
  const trimmed = text.trim();
  if (trimmed.length === 0) return [];
  if (estimateTokens(trimmed) <= maxTokens) return [trimmed];
  const sentences = trimmed.split(/(?<=[.!?。！？；;\n])\s*/u).filter((s) => s.trim().length > 0);
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim().length > 0) chunks.push(current.trim());
    current = '';
  };
  for (const sentence of sentences.flatMap((s) => splitLong(s, maxTokens))) {
    const joined = current.length === 0 ? sentence : current + separator(current, sentence) + sentence;
    if (estimateTokens(joined) > maxTokens) {
      flush();
      current = sentence;
    } else {
      current = joined;
    }
  }
  flush();
  return chunks;
}

/** Chinese and Japanese sentences follow each other without a space. */
function separator(before: string, after: string): string {
  return /[。！？；\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]$/u.test(before) || containsCjk(after.charAt(0)) ? '' : ' ';
}

function splitLong(sentence: string, maxTokens: number): string[] {
  if (estimateTokens(sentence) <= maxTokens) return [sentence];
  const parts: string[] = [];
  let rest = sentence;
  while (estimateTokens(rest) > maxTokens) {
    // Largest prefix that fits, by binary search over its length.
    let lo = 1;
    let hi = rest.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (estimateTokens(rest.slice(0, mid)) <= maxTokens) lo = mid;
      else hi = mid - 1;
    }
    const space = rest.lastIndexOf(' ', lo);
    const cut = space > lo / 2 ? space : lo;
    parts.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest.length > 0) parts.push(rest);
  return parts;
}
