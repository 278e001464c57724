/**
 * The embeddings port. The dimension comes from the model, never from the code: an index
 * is opened for one model id and its dimension (see VectorIndex.open).
 */
export interface EmbeddingModelInfo {
  /** Names the model and its output space, e.g. `all-minilm-l6-v2-q`; vectors of two ids never mix. */
  id: string;
  dimensions: number;
  /**
   * Set when the model routes texts by language to several models (LanguageRoutedEmbeddingModel):
   * its vectors lie in the direct sum of their spaces, each model's block at its offset, the
   * others zero. An index opened for such a model keeps each block in that model's own storage.
   */
  spaces?: readonly EmbeddingSpace[];
}

/** One model's block of a routed model's vectors. */
export interface EmbeddingSpace {
  id: string;
  dimensions: number;
  /** Where its block starts in the routed vector. */
  offset: number;
  /** The language routed to it (`zh`, `en`: everything not detected as another). */
  language: string;
}

export interface EmbedOptions {
  kind?: 'query' | 'passage';
  /**
   * For a model that routes by language: per text, what its language is read from (default: the
   * text itself). An item is embedded with its previous turn but routed by its own words.
   */
  languageOf?: readonly string[];
  /**
   * Per text, the previous turn it follows (indexed items; `undefined` for none). A model with a
   * context weight (a catalogued local model: see LocalModelSpec.contextWeight) embeds the text
   * alone and adds the previous turn's own vector at that weight; any other model embeds the two
   * as one text, the previous turn first.
   */
  contexts?: readonly (string | undefined)[];
}

export interface EmbeddingModel {
  /** Loads the model if needed (a first call may download it) and tells its id and dimension. */
  info(): Promise<EmbeddingModelInfo>;
  /**
   * One unit-length vector per text, in order. `kind` says whether the texts are questions or
   * the passages searched (default); models trained with prefixes (e5: "query: ", "passage: ") add them.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** Cosine similarity of two vectors (1 for the same direction). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}
