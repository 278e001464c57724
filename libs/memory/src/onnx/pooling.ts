import { normalize } from '../embedding-model';

/** What a text's vector is made of: the mean of its tokens' states, or its first ([CLS]) token's. */
export type Pooling = 'mean' | 'cls';

/**
 * One normalised vector per text from a batch's last hidden states (`[texts, tokens, dimensions]`,
 * row-major) and its attention mask (padding is 0). The same as transformers.js's pipeline
 * pooling, read row by row: its mean pooling walks a dimension across tokens, with a BigInt
 * conversion per value, which cost ~10 % of an indexing batch of short turns.
 */
export function pooledVectors(hidden: Float32Array, dims: readonly number[], mask: ArrayLike<bigint | number>, pooling: Pooling): Float32Array[] {
  const [texts, tokens, dimensions] = dims as [number, number, number];
  const vectors: Float32Array[] = [];
  for (let t = 0; t < texts; t++) {
    const first = t * tokens * dimensions;
    if (pooling === 'cls') {
      vectors.push(normalize(hidden.slice(first, first + dimensions)));
      continue;
    }
    const vector = new Float32Array(dimensions);
    let counted = 0;
    for (let token = 0; token < tokens; token++) {
      if (Number(mask[t * tokens + token]) === 0) continue;
      counted++;
      const row = first + token * dimensions;
      for (let d = 0; d < dimensions; d++) vector[d]! += hidden[row + d]!;
    }
    if (counted > 0) for (let d = 0; d < dimensions; d++) vector[d]! /= counted;
    vectors.push(normalize(vector));
  }
  return vectors;
}
