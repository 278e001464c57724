/**
 * LoCoMo retrieval benchmark (Maharana et al., ACL 2024): evidence recall@5/10/25/50 of Rewind's
 * long-term memory on the ten LoCoMo conversations, beside BM25 alone and dense alone over the
 * same index, in the same run, and the paper's published DRAGON figures.
 *
 * The data (CC BY-NC 4.0) is never committed: pass the path of `data/locomo10.json` from
 * github.com/snap-research/LoCoMo.
 *
 * Usage: npm run bench:locomo -- --data <path to locomo10.json> [--sweep] [--conversations 1-10] [--no-captions] [--context-weight <w>|none]
 *
 * Driven through the library (`@rewind/embedded`, the same code as `POST /v1/sessions/:id/recall`):
 * each conversation is one session in one data directory, each turn a message
 * `[<session date>] <speaker>: <text>` (first speaker as `user`, second as `agent`; a turn that shared
 * an image ends with ` [shared <its BLIP caption>]`, as the paper's retrievers saw it, unless
 * `--no-captions`, the loading of the tables before 2026-11-27), indexed by
 * the product's indexer into its SQLite index (FTS5 + vectors), and every question is asked with
 * scope `session`, once per k (5, 10, 25, 50), with rewriting off and on. BM25 alone is the
 * index's FTS5 search; dense alone is its vector search with the same model. `--sweep` also
 * ranks fusion settings on conversations 1–5 and shows them on 6–10.
 * The embedding model is the product's default unless REWIND_EMBEDDING_MODEL says otherwise.
 * `--vector-cache <file>` keeps the vectors of texts already embedded by that model between runs
 * (a faster loop when tuning; the indexing rate it reports is then meaningless).
 *
 * Asked right after writing (issue 39), beside after catch-up: the indexer's keyword stage (stage 1) runs
 * first and every question is asked before stage 2 has attached any vector — what a user meets when
 * `/v1/memory/status` says the index has the writes — then stage 2 catches up and the questions are asked
 * again. `--embedded-shares 0,0.5` asks at each of these shares of the items embedded (stage 2 embeds
 * newest first, so a share is the later conversations' turns; default `0`); `--caught-up-only` skips it.
 * `--sweep --sweep-only --keyword-stage-only` asks the sweep's variants in that first state (no vector attached).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Rewind } from '@rewind/embedded';
import { summarize } from './stats';
import { modelFusion } from '@rewind/memory/runtime';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, OnnxEmbeddingModel } from '@rewind/memory/onnx';
import { LOCOMO_RESULTS_FILE } from './suite/locomo-report';
import {
  DEFAULT_CANDIDATES,
  DEFAULT_FUSION,
  DEFAULT_INFERENCE_DENSE_WEIGHT,
  DEFAULT_LIST_SPEAKER_WEIGHT,
  DEFAULT_SPEAKER_WEIGHT,
  DEFAULT_WHEN_WEIGHT,
  asWindows,
  EngineSessionPaths,
  MemoryIndexer,
  MemoryRecall,
  type EmbeddingModel,
  type MemoryRecallOptions,
  type SessionPath,
  type SessionPaths,
} from '@rewind/memory';

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  /** A shared image's caption (BLIP), on about a fifth of the turns. */
  blip_caption?: string;
}
interface LocomoQuestion {
  question: string;
  evidence: string[];
  category: number;
}
interface LocomoConversation {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: LocomoQuestion[];
}

interface Question {
  conversation: number;
  sessionId: string;
  text: string;
  category: number;
  evidence: Set<string>;
}

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const log = (line: string) => process.stdout.write(`${line}\n`);

/** The arguments as given, the paths as placeholders (the data's and the cache's are the runner's own). */
function commandLine(): string {
  const placeholders: Record<string, string> = { data: '<path to locomo10.json>', 'vector-cache': '<cache file>', dump: '<file>' };
  return argv
    .map((arg, i) =>
      argv[i - 1]?.startsWith('--') && placeholders[argv[i - 1]!.slice(2)] ? placeholders[argv[i - 1]!.slice(2)]! : /^[\w./:-]+$/.test(arg) ? arg : `'${arg}'`,
    )
    .join(' ');
}

const KS = [5, 10, 25, 50] as const;
const CATEGORIES: Record<number, string> = { 4: 'single-hop', 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 5: 'adversarial' };
/** Table 3 of the paper: DRAGON over dialogs, R@5 / 10 / 25 / 50 (the issue's figures). */
const DRAGON: Record<string, readonly number[]> = {
  all: [56.7, 66.2, 76.7, 82.7],
  'single-hop': [68.0, 77.7, 87.1],
  'multi-hop': [35.4, 46.6, 62.5],
  temporal: [70.4, 77.3, 83.5],
  'open-domain': [33.1, 40.8, 52.6],
};

/** `D1:3` (and the data's one `D30:05`) as one canonical id. */
function diaId(raw: string): string | null {
  const m = /^D(\d+):0*(\d+)$/.exec(raw.trim());
  return m ? `D${m[1]}:${m[2]}` : null;
}

function conversationRange(spec: string | undefined, total: number): number[] {
  if (!spec) return Array.from({ length: total }, (_, i) => i + 1);
  const [from, to] = spec.split('-').map(Number);
  return Array.from({ length: (to ?? from!) - from! + 1 }, (_, i) => from! + i);
}

/** Caches question vectors: each question is embedded once, however many times it is asked (same text, same vector). */
function cachingModel(model: EmbeddingModel): EmbeddingModel {
  const cache = new Map<string, Float32Array>();
  return {
    info: () => model.info(),
    close: async () => {},
    async embed(texts, options) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      if (missing.length > 0) (await model.embed(missing, options)).forEach((v, i) => cache.set(missing[i]!, v));
      return texts.map((t) => cache.get(t)!);
    },
  };
}

/** Vectors kept by text (and kind) in a file between runs: `--vector-cache`. */
function persistentCache(model: EmbeddingModel, file: string, modelId: string): EmbeddingModel & { save(): void } {
  const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  const keyOf = (text: string, kind: string) => createHash('sha1').update(`${modelId}\u0000${kind}\u0000${text}`).digest('base64');
  return {
    info: () => model.info(),
    close: async () => {},
    save: () => writeFileSync(file, JSON.stringify(stored)),
    async embed(texts, options) {
      const kind = options?.kind ?? 'passage';
      // A turn's vector depends on its previous turn too: kept by both (a cache file per model and context weight).
      const keys = asWindows(texts, options?.contexts).map((window) => keyOf(window, kind));
      const missing = [...new Map(texts.map((t, i) => [keys[i]!, i] as const).filter(([key]) => !(key in stored))).values()];
      if (missing.length > 0) {
        const { contexts } = options ?? {};
        const given = { ...options, ...(contexts ? { contexts: missing.map((i) => contexts[i]) } : {}) };
        (
          await model.embed(
            missing.map((i) => texts[i]!),
            given,
          )
        ).forEach((v, j) => (stored[keys[missing[j]!]!] = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')));
      }
      return keys.map((key) => {
        const bytes = Buffer.from(stored[key]!, 'base64');
        return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice();
      });
    },
  };
}

/** Nothing changes while the questions are asked: each session's path is read once. */
function cachingPaths(paths: SessionPaths): SessionPaths {
  const cache = new Map<string, Promise<SessionPath>>();
  return {
    pathOf(tenantId, sessionId, at) {
      const key = `${tenantId}\u0000${sessionId}\u0000${at ?? ''}`;
      let path = cache.get(key);
      if (!path) cache.set(key, (path = paths.pathOf(tenantId, sessionId, at)));
      return path;
    },
  };
}

type Ranker = (q: Question, k: number) => Promise<string[]>;

interface Scores {
  /** Per question, per k: the share of its evidence in the top k, and whether all of it is. */
  recall: number[][];
  all: boolean[][];
}

async function score(questions: Question[], rank: Ranker, perK: boolean): Promise<Scores> {
  const recall: number[][] = [];
  const all: boolean[][] = [];
  for (const q of questions) {
    const r: number[] = [];
    const a: boolean[] = [];
    const widest = perK ? [] : await rank(q, KS[KS.length - 1]!);
    for (const k of KS) {
      const top = perK ? await rank(q, k) : widest.slice(0, k);
      const found = [...q.evidence].filter((e) => top.includes(e)).length;
      r.push(found / q.evidence.size);
      a.push(found === q.evidence.size);
    }
    recall.push(r);
    all.push(a);
  }
  return { recall, all };
}

const pct = (x: number) => (100 * x).toFixed(1);

function summary(questions: Question[], scores: Scores, select: (q: Question) => boolean): { recall: number[]; all: number[]; n: number } {
  const idx = questions.map((q, i) => (select(q) ? i : -1)).filter((i) => i >= 0);
  const mean = (f: (i: number) => number) => idx.reduce((s, i) => s + f(i), 0) / Math.max(1, idx.length);
  return {
    n: idx.length,
    recall: KS.map((_, j) => mean((i) => scores.recall[i]![j]!)),
    all: KS.map((_, j) => mean((i) => (scores.all[i]![j]! ? 1 : 0))),
  };
}

function table(questions: Question[], systems: [string, Scores][], paper: boolean): string {
  const groups: [string, (q: Question) => boolean][] = [
    ['all questions', () => true],
    ...[4, 1, 2, 3, 5].map((c): [string, (q: Question) => boolean] => [CATEGORIES[c]!, (q) => q.category === c]),
  ];
  const header = `| R@5 / R@10 / R@25 / R@50 | ${systems.map(([name]) => name).join(' | ')}${paper ? ' | paper, DRAGON' : ''} |`;
  const lines = [header, `| --- |${' --- |'.repeat(systems.length + (paper ? 1 : 0))}`];
  for (const [label, select] of groups) {
    const cells = systems.map(([, s]) => summary(questions, s, select));
    const n = cells[0]!.n;
    const key = label === 'all questions' ? 'all' : label;
    const dragon = DRAGON[key];
    lines.push(
      `| ${label} (${n}) | ${cells.map((c) => c.recall.map(pct).join(' / ')).join(' | ')}${paper ? ` | ${dragon ? dragon.map((x) => x.toFixed(1)).join(' / ') : '—'}` : ''} |`,
    );
  }
  lines.push(
    `| all evidence found (share of questions) | ${systems
      .map(([, s]) =>
        summary(questions, s, () => true)
          .all.map(pct)
          .join(' / '),
      )
      .join(' | ')}${paper ? ' | —' : ''} |`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const dataPath = flag('data');
  if (!dataPath) {
    process.stderr.write('Usage: npm run bench:locomo -- --data <path to locomo10.json> [--sweep] [--conversations 1-10] [--no-captions]\n');
    process.stderr.write('The data: data/locomo10.json in https://github.com/snap-research/LoCoMo (CC BY-NC 4.0).\n');
    process.exit(2);
  }
  const data = JSON.parse(readFileSync(dataPath, 'utf8')) as LocomoConversation[];
  const chosen = conversationRange(flag('conversations'), data.length);
  // A turn that shared an image carries its caption, as the paper's own retrievers saw it (`<speaker> said,
  // "<text>" and shared <caption>`, prepare_for_rag in task_eval/gpt_utils.py of snap-research/LoCoMo):
  // DRAGON's figures were made so. Without it the image is lost ("take a look at this" is a painting of a
  // sunset). `--no-captions` reproduces the earlier tables' loading; `--captions` is accepted and the default.
  const withCaptions = !argv.includes('--no-captions');
  const dir = mkdtempSync(join(tmpdir(), 'rewind-locomo-'));
  const rewind = Rewind.open({ dataDir: dir });
  try {
    const runtime = rewind.memory();
    const info = await runtime.open();
    const dia = new Map<string, string>();
    const questions: Question[] = [];
    let turns = 0;
    const recordStart = performance.now();
    for (const n of chosen) {
      const conv = data[n - 1]!;
      const sessionId = `locomo-${conv.sample_id}`;
      const session = await rewind.startSession(sessionId);
      const c = conv.conversation;
      const sessions = Object.keys(c)
        .map((k) => /^session_(\d+)$/.exec(k))
        .filter((m): m is RegExpExecArray => m !== null && Array.isArray(c[m[0]]))
        .map((m) => Number(m[1]))
        .sort((a, b) => a - b);
      const known = new Set<string>();
      for (const s of sessions) {
        const date = String(c[`session_${s}_date_time`] ?? '');
        for (const turn of c[`session_${s}`] as LocomoTurn[]) {
          const role = turn.speaker === c.speaker_a ? 'user' : 'agent';
          const version = await session.say(
            role,
            `[${date}] ${turn.speaker}: ${turn.text}${withCaptions && turn.blip_caption ? ` [shared ${turn.blip_caption}]` : ''}`,
          );
          const id = diaId(turn.dia_id)!;
          dia.set(`${sessionId}\u0000${version}`, id);
          known.add(id);
          turns++;
        }
      }
      log(`  conversation ${n} recorded (${turns} turns so far, ${((performance.now() - recordStart) / 1000).toFixed(1)} s)`);
      for (const qa of conv.qa) {
        const evidence = new Set(qa.evidence.flatMap((e) => e.split(/[;,\s]+/)).flatMap((e) => (diaId(e) && known.has(diaId(e)!) ? [diaId(e)!] : [])));
        if (evidence.size === 0) continue;
        questions.push({ conversation: n, sessionId, text: qa.question, category: qa.category, evidence });
      }
    }
    log(`Recorded ${turns} turns of ${chosen.length} conversations in ${((performance.now() - recordStart) / 1000).toFixed(1)} s.`);
    log(
      withCaptions
        ? "Image captions: on (a turn that shared an image ends with ' [shared <caption>]', as DRAGON's figures were made; --no-captions leaves them out)."
        : "Image captions: off (--no-captions; DRAGON's figures were made with them).",
    );
    const cacheFile = flag('vector-cache');
    // `--context-weight <w>` (with REWIND_EMBEDDING_MODEL naming one local model): how much of the previous
    // turn's vector a turn's vector carries, instead of the catalogue's (`none`: the two embedded as one window).
    const contextWeight = flag('context-weight');
    if (contextWeight !== undefined && !process.env.REWIND_EMBEDDING_MODEL) throw new Error('--context-weight needs REWIND_EMBEDDING_MODEL (one local model).');
    const embedder =
      contextWeight === undefined
        ? runtime.model
        : new OnnxEmbeddingModel({ model: process.env.REWIND_EMBEDDING_MODEL!, contextWeight: contextWeight === 'none' ? null : Number(contextWeight) });
    const vectors = cacheFile ? persistentCache(embedder, cacheFile, info.id) : embedder;
    const englishModel = process.env.REWIND_EMBEDDING_MODEL ?? DEFAULT_LOCAL_MODEL;
    const weightUsed = contextWeight === undefined ? LOCAL_MODELS[englishModel]?.contextWeight : contextWeight === 'none' ? undefined : Number(contextWeight);
    const contextLine =
      weightUsed === undefined
        ? 'the two turns embedded as one text'
        : `the message embedded alone, its vector plus ${weightUsed} × the previous turn's own vector, normalised`;
    // The product's indexer over the runtime's index, its store and checkpoints (with the cache or the weight when asked).
    const indexer =
      cacheFile || contextWeight !== undefined
        ? new MemoryIndexer({ index: runtime.index, model: vectors, policies: runtime.policies, store: rewind.store, checkpoints: runtime.checkpoints! })
        : runtime.indexer;
    const tableWanted = !argv.includes('--sweep-only');
    const keywordStageOnly = argv.includes('--keyword-stage-only');
    if (keywordStageOnly && tableWanted) throw new Error('--keyword-stage-only goes with --sweep-only (the table asks right after writing by itself).');
    const freshShares =
      argv.includes('--caught-up-only') || !tableWanted
        ? []
        : (flag('embedded-shares') ?? '0')
            .split(',')
            .map(Number)
            .sort((a, b) => a - b);
    if (freshShares.some((share) => !(share >= 0 && share < 1)))
      throw new Error(`--embedded-shares takes shares from 0 up to (not including) 1, e.g. 0,0.5: got ${flag('embedded-shares')}.`);
    // Indexing time and CPU, summed over its steps (the questions asked right after writing fall between them, uncounted).
    let indexSeconds = 0;
    let indexCpuSeconds = 0;
    const timed = async (step: () => Promise<unknown>) => {
      const [start, cpu] = [performance.now(), process.cpuUsage()];
      await step();
      const used = process.cpuUsage(cpu);
      indexSeconds += (performance.now() - start) / 1000;
      indexCpuSeconds += (used.user + used.system) / 1e6;
    };
    await timed(async () => {
      await indexer.open();
      // With questions asked right after writing: stage 1 alone (every item searchable by keywords, none by vector).
      // `--keyword-stage-only`: the sweep too is asked so (a tuning loop for the state a user meets first).
      await indexer.catchUp({ vectors: freshShares.length === 0 && !keywordStageOnly });
    });

    const tenantId = rewind.tenantId;
    const model = cachingModel(vectors);
    const paths = cachingPaths(new EngineSessionPaths(rewind.sessions));
    const deps = { index: runtime.index, model, paths, rewriter: runtime.rewriter, policies: runtime.policies };
    const turnsOf = (hits: { sessionId: string; version: number }[]) => hits.map((h) => dia.get(`${h.sessionId}\u0000${h.version}`) ?? '?');
    // Each recall's wall time and the process's CPU time over it (CPU time depends less on the machine's load).
    const latency = { wallMs: [] as number[], cpuMs: [] as number[] };
    const rewindRanker =
      (recall: MemoryRecall, rewrite: boolean): Ranker =>
      async (q, k) => {
        const [start, cpu] = [performance.now(), process.cpuUsage()];
        const { hits } = await recall.recall({ tenantId, sessionId: q.sessionId, query: q.text, k, scope: 'session', rewrite });
        const used = process.cpuUsage(cpu);
        latency.wallMs.push(performance.now() - start);
        latency.cpuMs.push((used.user + used.system) / 1000);
        return turnsOf(hits);
      };
    const latencyLine = () => {
      const [wall, cpu] = [summarize(latency.wallMs), summarize(latency.cpuMs)];
      return `Recall latency per question (${wall.n} recalls): wall p50 ${wall.p50.toFixed(1)} ms, p99 ${wall.p99.toFixed(1)} ms; CPU p50 ${cpu.p50.toFixed(1)} ms, p99 ${cpu.p99.toFixed(1)} ms.`;
    };
    const byCategory = (qs: Question[], s: Scores) =>
      [4, 1, 2, 3, 5]
        .map(
          (c) =>
            `${CATEGORIES[c]} ${summary(qs, s, (q) => q.category === c)
              .recall.map(pct)
              .join('/')}`,
        )
        .join('  ');
    // The product's recall options for this model (e5's own dense weight when REWIND_EMBEDDING_MODEL names it).
    const productOptions: MemoryRecallOptions = { recencyWeight: 0, ...modelFusion({ embeddingModel: process.env.REWIND_EMBEDDING_MODEL }) };
    const product = new MemoryRecall(deps, productOptions);
    const scope = (q: Question) => ({ tenantId, sessionId: q.sessionId });
    const bm25: Ranker = async (q, k) => turnsOf((await runtime.index.searchText(q.text, scope(q), k)).map((h) => h.item));
    const dense: Ranker = async (q, k) => {
      const [vector] = await model.embed([q.text], { kind: 'query' });
      return turnsOf((await runtime.index.searchVector(vector!, scope(q), k)).map((h) => h.item));
    };

    const freshRows: [string, Scores][] = [];
    if (freshShares.length > 0) {
      const pending = async () => (await runtime.index.pendingVectors?.())?.items ?? 0;
      const admitted = await pending();
      for (const share of freshShares) {
        // Stage 2 in its own batches, newest first, until this share of the admitted items has its vector.
        await timed(async () => {
          for (
            let left = Math.floor(share * admitted) - (admitted - (await pending()));
            left > 0;
            left = Math.floor(share * admitted) - (admitted - (await pending()))
          )
            if ((await indexer.embedPending(Math.min(128, left))) === 0) break;
        });
        const embedded = admitted - (await pending());
        const askedAt = performance.now();
        freshRows.push([
          `Rewind, asked right after writing (${embedded === 0 ? 'no vector yet' : `${pct(embedded / Math.max(1, admitted))} % of the items embedded`})`,
          await score(questions, rewindRanker(product, false), true),
        ]);
        log(
          `Asked right after writing, ${embedded} of ${admitted} items embedded: R@5/10/25/50 ${summary(
            questions,
            freshRows[freshRows.length - 1]![1],
            () => true,
          )
            .recall.map(pct)
            .join('/')} (${((performance.now() - askedAt) / 1000).toFixed(1)} s).`,
        );
      }
      latency.wallMs.length = latency.cpuMs.length = 0;
      await timed(() => indexer.catchUp());
    }
    if (cacheFile) (vectors as ReturnType<typeof persistentCache>).save();
    const loadWhileIndexing = loadavg()[0]!;
    const items = await runtime.index.count();
    const indexing = cacheFile
      ? `${items} items (vectors from --vector-cache: indexing rate not measured)`
      : `${items} items in ${indexSeconds.toFixed(1)} s: ${Math.round(items / indexSeconds)} items/s on one thread (load average ${loadWhileIndexing.toFixed(1)} on ${cpus().length} cores; ` +
        `${indexCpuSeconds.toFixed(1)} s of CPU, ${Math.round(items / indexCpuSeconds)} items per CPU second)`;
    log(`Indexed ${indexing} with ${info.id} (${info.dimensions} dims).`);

    const askStart = performance.now();
    let rewritten = 0;
    let main = '';
    let recallLatency = '';
    if (tableWanted) {
      // Asked from outside the conversation, a question needs no rewriting; when none is rewritten, "on" is "off".
      for (const q of questions) {
        const path = await paths.pathOf(tenantId, q.sessionId);
        if ((await runtime.rewriter.rewrite(q.text, path.recentMessages)).query !== q.text) rewritten++;
      }
      log(`Rewriting on: ${rewritten} of ${questions.length} questions rewritten.`);
      const off = await score(questions, rewindRanker(product, false), true);
      recallLatency = latencyLine();
      log(recallLatency);
      const systems: [string, Scores][] = [
        ...freshRows,
        [freshRows.length > 0 ? 'Rewind, after catch-up, rewrite off' : 'Rewind, rewrite off', off],
        ['Rewind, rewrite on', rewritten === 0 ? off : await score(questions, rewindRanker(product, true), true)],
        ['BM25 alone (FTS5)', await score(questions, bm25, false)],
        [`dense alone (${info.id})`, await score(questions, dense, false)],
      ];
      if (cacheFile) (vectors as ReturnType<typeof persistentCache>).save();
      log(`Asked ${questions.length} questions (${((performance.now() - askStart) / 1000).toFixed(1)} s).\n`);
      main = table(questions, systems, true);
      log(main);
    }
    const dumpFile = flag('dump');
    if (dumpFile) {
      // Per question, the product's 50 best turns (ids only): for analysis, written outside the repository (the data's licence).
      const ranked = [];
      for (const q of questions)
        ranked.push({ c: q.conversation, cat: q.category, q: q.text, evidence: [...q.evidence], top: await rewindRanker(product, false)(q, 50) });
      writeFileSync(dumpFile, JSON.stringify(ranked));
    }
    const sweepLines: string[] = [];

    if (argv.includes('--sweep')) {
      const tuning = questions.filter((q) => q.conversation <= 5);
      const held = questions.filter((q) => q.conversation > 5);
      // `--variants '[["name", {MemoryRecallOptions}], …]'` replaces the default list (a tuning loop on cached vectors).
      const given = flag('variants');
      const variants: [string, MemoryRecallOptions][] = given
        ? (JSON.parse(given) as [string, MemoryRecallOptions][])
        : [
            ['rrf 60 (before)', { fusion: { method: 'rrf', k: 60 } }],
            ...[0.3, 0.4, 0.5, 0.6, 0.7].map((a): [string, MemoryRecallOptions] => [`convex, dense ${a}`, { fusion: { method: 'convex', denseWeight: a } }]),
          ];
      sweepLines.push('| fusion (rewrite off) | conversations 1–5 (tuning): R@5 / R@10 / R@25 / R@50 | 6–10 (held out) |', '| --- | --- | --- |');
      log('');
      if (!tableWanted) {
        // Tuning aid: the floor every category must stay above (BM25 alone, this run's loading), per half.
        const [tunedBm25, heldBm25] = [await score(tuning, bm25, false), await score(held, bm25, false)];
        log(`BM25 alone  1–5:  ${byCategory(tuning, tunedBm25)}`);
        log(`BM25 alone  6–10: ${byCategory(held, heldBm25)}`);
        const everyBm25 = { recall: [...tunedBm25.recall, ...heldBm25.recall], all: [...tunedBm25.all, ...heldBm25.all] };
        log(`BM25 alone  1–10: ${byCategory([...tuning, ...held], everyBm25)}`);
      }
      log(sweepLines.join('\n'));
      for (const [name, options] of variants) {
        const recall = new MemoryRecall(deps, { ...productOptions, ...options });
        const ranker = rewindRanker(recall, false);
        latency.wallMs.length = latency.cpuMs.length = 0;
        const tuned = await score(tuning, ranker, false);
        const heldOut = await score(held, ranker, false);
        const a = summary(tuning, tuned, () => true);
        const b = summary(held, heldOut, () => true);
        sweepLines.push(`| ${name} | ${a.recall.map(pct).join(' / ')} | ${b.recall.map(pct).join(' / ')} |`);
        log(sweepLines[sweepLines.length - 1]!);
        if (!tableWanted) {
          // Tuning aid: each category on each half, and the cost.
          log(`    1–5:  ${byCategory(tuning, tuned)}`);
          log(`    6–10: ${byCategory(held, heldOut)}`);
          const [everyQuestion, everyScore] = [[...tuning, ...held], { recall: [...tuned.recall, ...heldOut.recall], all: [...tuned.all, ...heldOut.all] }];
          log(
            `    1–10: all ${summary(everyQuestion, everyScore, () => true)
              .recall.map(pct)
              .join('/')}  ${byCategory(everyQuestion, everyScore)}`,
          );
          log(`    ${latencyLine()}`);
        }
      }
    }
    if (cacheFile) (vectors as ReturnType<typeof persistentCache>).save();
    if (chosen.length === data.length && tableWanted) {
      const section = [
        '## LoCoMo — long-term memory on the field’s retrieval benchmark',
        '',
        `Generated by \`npm run bench:locomo -- ${commandLine()}\` on ${new Date().toISOString().slice(0, 10)}. ` +
          'Data: `data/locomo10.json` of github.com/snap-research/LoCoMo (CC BY-NC 4.0, not in this repository). ' +
          `Each of the 10 conversations is one session (${turns} turns, each a message \`[<session date>] <speaker>: <text>\`${withCaptions ? ", followed by ` [shared <caption>]` when the turn shared an image (its BLIP caption, as the paper's retrievers and so DRAGON's figures saw it; `--no-captions` leaves it out)" : "; image captions left out (`--no-captions`: DRAGON's figures had them)"}), indexed by the product's indexer into its SQLite index ` +
          `(FTS5 + vectors) through the library (\`@rewind/embedded\`) with the product's defaults: each message embedded with its previous turn (${contextLine}), and searched by keywords with its previous turn in a column of its own ` +
          `(BM25 weight 0.6 against the turn's 1; Porter-stemmed words); recall fuses both lists' ${productOptions.candidates ?? DEFAULT_CANDIDATES} best by a convex combination (dense weight ${(productOptions.fusion ?? DEFAULT_FUSION).method === 'convex' ? ((productOptions.fusion ?? DEFAULT_FUSION) as { denseWeight: number }).denseWeight : '–'}; every candidate scored by both signals: a keyword hit by its stored vector's cosine too), ` +
          `then looks again from the 3 best hits (pseudo-relevance feedback), and a turn gains a quarter of its better neighbour’s score; ` +
          `for a question asking when, a turn that says when ("last Friday", "two weeks ago") gains ${DEFAULT_WHEN_WEIGHT} of the best score, a question asking for an inference ("Would…", "likely") is fused at dense weight ${DEFAULT_INFERENCE_DENSE_WEIGHT}, ` +
          `and for a question naming a speaker ("What has Melanie seen?"), that speaker's messages gain ${DEFAULT_SPEAKER_WEIGHT} of their own score (${DEFAULT_LIST_SPEAKER_WEIGHT} when it asks for several things: "What activities has Melanie done?"). Every question is asked with scope \`session\`, once per k. Evidence recall@k: the share of a question's evidence turns among the k hits ` +
          '(a hit counts for its own turn, not for the previous turn it was searched with). BM25 alone is the same index’s FTS5 search, dense alone its vector search with the same model, in the same run; ' +
          'DRAGON: the paper’s Table 3 (retrieval over dialogs; R@50 published overall only). Categories: 4 single-hop, 1 multi-hop, 2 temporal, 3 open-domain, 5 adversarial (in “all questions”); ' +
          `questions whose evidence names no turn of the data are left out (${data.reduce((n, c) => n + c.qa.length, 0) - questions.length}).`,
        '',
        ...(freshRows.length > 0
          ? [
              '“Asked right after writing”: every question asked once the indexer’s keyword stage (stage 1) has admitted every turn and before stage 2 has attached ' +
                `${freshShares.length === 1 && freshShares[0] === 0 ? 'any vector' : 'the vectors beyond the share given (newest first)'} — the state \`/v1/memory/status\` reports as indexed — rewrite off; ` +
                '“after catch-up”: the same questions once every turn has its vector.',
              '',
            ]
          : []),
        `Model ${info.id} (${info.dimensions} dims); indexed ${indexing}. Rewriting on: ${rewritten} of ${questions.length} questions rewritten${rewritten === 0 ? ' (so “on” is “off”)' : ''}. ${recallLatency}`,
        '',
        main,
        ...(sweepLines.length > 0 ? ['', sweepLines.join('\n')] : []),
      ].join('\n');
      writeFileSync(resolve(LOCOMO_RESULTS_FILE), `${section}\n`);
      log(`\nWrote ${LOCOMO_RESULTS_FILE} (BENCHMARKS.md takes it in on the next \`npm run bench\`).`);
    }
  } finally {
    await rewind.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
