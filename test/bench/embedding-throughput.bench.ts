/**
 * Stage 2's embedding throughput on LoCoMo's real turns (issue 39 item 2), one line to re-measure:
 *
 *   npm run build && node dist/test/bench/embedding-throughput.bench.js --data <path to locomo10.json>
 *
 * Every turn of the ten conversations, as the LoCoMo bench records it (`[<date>] <speaker>: <text>`, a
 * shared image's caption at the end) with its previous turn as context (as TurnContext gives it), is
 * admitted to a SQLite index (stage 1, not timed) and then embedded by stage 2 as the indexer does it
 * (`embedPending` batches: the default local model, the vectors attached). Printed: items per wall second
 * and per CPU second of this process (process.cpuUsage: the tokenizer on this thread and onnxruntime's
 * threads), with the onnxruntime threads used (`--threads`, default 1 as REWIND_MEMORY_INDEXER_THREADS).
 * `--items <n>` embeds the first n turns only; `--batch <n>` sets the stage-2 batch (default the indexer's);
 * `--runs <n>` repeats the measure (a fresh index each time, the model kept warm); `--ab` alternates the model's
 * inference batches as they were before issue 39 (32 texts a call) with the default (up to 512 padded tokens a
 * call), back to back, `--runs` times each.
 * The data (CC BY-NC 4.0) is never committed: data/locomo10.json of github.com/snap-research/LoCoMo.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalItemWriter, type MemoryItem } from '@rewind/memory';
import { DEFAULT_LOCAL_MODEL, OnnxEmbeddingModel } from '@rewind/memory/onnx';
import { SqliteVectorIndex } from '@rewind/memory/sqlite-vec';

interface LocomoTurn {
  speaker: string;
  text: string;
  blip_caption?: string;
}

/** TurnContext's default: the previous turn's last 400 characters. */
const MAX_CONTEXT_CHARS = 400;

/** Every turn of the conversations, in order, as stage 2 finds them (text, and the previous turn as context). */
function locomoItems(file: string): MemoryItem[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { sample_id: string; conversation: Record<string, unknown> }[];
  const items: MemoryItem[] = [];
  for (const { sample_id: sample, conversation: c } of data) {
    const sessions = Object.keys(c)
      .flatMap((k) => (/^session_(\d+)$/.exec(k) && Array.isArray(c[k]) ? [Number(k.slice('session_'.length))] : []))
      .sort((a, b) => a - b);
    let previous: string | undefined;
    for (const s of sessions) {
      const date = String(c[`session_${s}_date_time`] ?? '');
      for (const turn of c[`session_${s}`] as LocomoTurn[]) {
        const text = `[${date}] ${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shared ${turn.blip_caption}]` : ''}`;
        const n = items.length;
        items.push({
          id: `t${n}:0`,
          tenantId: 'bench',
          sessionId: `locomo-${sample}`,
          eventId: `t${n}`,
          version: n + 2,
          globalPosition: n + 1,
          role: n % 2 ? 'agent' : 'user',
          occurredAt: new Date(1_700_000_000_000 + n * 1000).toISOString(),
          chunk: 0,
          text,
          ...(previous !== undefined ? { context: previous.length > MAX_CONTEXT_CHARS ? previous.slice(-MAX_CONTEXT_CHARS) : previous } : {}),
        });
        previous = text;
      }
    }
  }
  return items;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const data = flag('data');
  if (!data) {
    process.stderr.write(
      'Usage: node dist/test/bench/embedding-throughput.bench.js --data <path to locomo10.json> [--items n] [--threads n] [--batch n] [--runs n] [--ab]\n',
    );
    process.exit(2);
  }
  const all = locomoItems(data);
  const items = all.slice(0, Number(flag('items') ?? all.length));
  const threads = Number(flag('threads') ?? 1);
  const batch = Number(flag('batch') ?? 128);
  const runs = Number(flag('runs') ?? 1);
  const modelId = process.env.REWIND_EMBEDDING_MODEL ?? DEFAULT_LOCAL_MODEL;
  const variants: [string, { batchSize?: number }][] = [
    ...(args.includes('--ab') ? [['32 texts a call (before)', { batchSize: 32 }] as [string, { batchSize?: number }]] : []),
    ['by padded tokens (default)', {}],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'rewind-embedding-throughput-'));
  try {
    for (let run = 1; run <= runs; run++)
      for (const [v, [variant, options]] of variants.entries()) {
        // A fresh model each run: the model keeps the vectors of recent turns (a turn's context), which a second pass would reuse.
        const model = new OnnxEmbeddingModel({ model: modelId, intraOpThreads: threads, ...options });
        const info = await model.info();
        await model.embed(['warm-up sentence for the model']);
        const index = new SqliteVectorIndex({ filename: join(dir, `run-${run}-${v}.memory.db`) });
        await index.open(info);
        for (let i = 0; i < items.length; i += 256) await index.admit(items.slice(i, i + 256));
        const writer = new LocalItemWriter({ model, index });
        const [cpu, wall] = [cpuMs(), performance.now()];
        while ((await writer.embedPending(batch)) > 0);
        const cpuSeconds = (cpuMs() - cpu) / 1000;
        const wallSeconds = (performance.now() - wall) / 1000;
        if ((await index.pendingVectors()).items !== 0) throw new Error('stage 2 left items without vectors');
        await index.close();
        await model.close();
        console.log(
          `${modelId}, ${variant}, ${items.length} LoCoMo turns, stage-2 batches of ${batch}, ${threads} onnxruntime thread(s) on ${cpus().length} cores (load ${loadavg()[0]!.toFixed(1)}): ` +
            `${Math.round(items.length / wallSeconds)} items/s wall, ${Math.round(items.length / cpuSeconds)} items per CPU second ` +
            `(${wallSeconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU)`,
        );
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
