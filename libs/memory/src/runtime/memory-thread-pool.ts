import { join } from 'node:path';
import type Tinypool from 'tinypool' with { 'resolution-mode': 'import' };
import type { EmbeddingModel, EmbeddingModelInfo, EmbedOptions } from '../embedding-model';
import type { MemoryItem } from '../memory-item';
import type { MemoryIndexerPlacement, MemoryItemAdmitter, MemoryItemWriter } from '../memory-item-writer';
import type { MemoryConfig } from './memory-config';
import type { MemoryThreadData } from './memory-thread';

/** How long a closing thread may take to close its model and index before it is terminated. */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * The compiled thread entry. Under the test runner this module is read from its TypeScript
 * source, but a worker thread runs plain JavaScript: the build's copy (npm test builds first).
 */
function threadEntry(): string {
  const dir = __filename.endsWith('.ts') ? join(__dirname, '..', '..', 'dist', 'runtime') : __dirname;
  return join(dir, 'memory-thread.js');
}

/**
 * The Node flags to give the thread: none (it inherits this process's, V8 flags such as
 * --max-old-space-size included) unless they hold the test runner's `@rewind/source` export
 * condition, which must go (the thread runs the compiled packages). A flag list given
 * explicitly must not name V8 flags (ERR_WORKER_INVALID_EXEC_ARGV), so only then is it given.
 */
export function threadExecArgv(argv: readonly string[] = process.execArgv): string[] | undefined {
  const isSourceCondition = (arg: string, i: number) =>
    /^(--conditions|-C)=?@rewind\/source$/.test(arg) ||
    (/^(--conditions|-C)$/.test(arg) && argv[i + 1] === '@rewind/source') ||
    (arg === '@rewind/source' && /^(--conditions|-C)$/.test(argv[i - 1] ?? ''));
  if (!argv.some(isSourceCondition)) return undefined;
  return argv.filter((arg, i) => !isSourceCondition(arg, i));
}

const withExecArgv = (execArgv: string[] | undefined) => (execArgv ? { execArgv } : {});

/**
 * One worker thread (tinypool, one thread, restarted on the next task when it crashed) running
 * memory-thread.ts in one role. Tasks queue: one at a time, in order.
 */
class MemoryThread {
  private pool: Promise<Tinypool> | undefined;

  constructor(private readonly data: MemoryThreadData) {}

  private start(): Promise<Tinypool> {
    this.pool ??= (async () => {
      // ESM-only package: a native dynamic import, kept as such by the CommonJS build.
      const { default: Pool } = await import('tinypool');
      return new Pool({ filename: threadEntry(), minThreads: 1, maxThreads: 1, workerData: this.data, teardown: 'close', ...withExecArgv(threadExecArgv()) });
    })();
    return this.pool;
  }

  async run<T>(name: 'open' | 'openIndex' | 'write' | 'admit' | 'embedPending' | 'embed', argument: unknown): Promise<T> {
    return ((await this.start()).run(argument, { name }) as Promise<T>).catch((error: unknown) => {
      throw error instanceof Error ? error : new Error(`The memory ${this.data.role} thread failed: ${String(error)}`);
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (!pool) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CLOSE_TIMEOUT_MS)));
    const destroyed = (await pool).destroy();
    const outcome = await Promise.race([destroyed.then(() => 'closed' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout')
      throw new Error(`The memory ${this.data.role} thread did not close within ${CLOSE_TIMEOUT_MS / 1000} s; it was left to end with the process.`);
  }
}

/**
 * Embeds and writes memory items in a worker thread with one intra-op thread: the indexing
 * work takes at most about one core and never runs on the caller's event loop.
 */
export class ThreadItemWriter implements MemoryItemWriter {
  readonly runsIn: MemoryIndexerPlacement = 'thread';
  private readonly thread: MemoryThread;

  constructor(config: MemoryConfig) {
    this.thread = new MemoryThread({ config, role: 'writer' });
  }

  open(): Promise<EmbeddingModelInfo> {
    return this.thread.run('open', null);
  }

  async write(items: readonly MemoryItem[]): Promise<void> {
    if (items.length > 0) await this.thread.run('write', items);
  }

  embedPending(limit: number): Promise<number> {
    return this.thread.run('embedPending', limit);
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

/**
 * Stage 1 of two-stage indexing (rows and FTS5 words, no model) in a worker thread at normal
 * priority, with its own connection to the index: the transaction and the tokenizing it does
 * leave the API's event loop, while the keyword lag stays bounded (unlike the writer, this
 * thread is not niced). Items cross by structured clone; the index file takes the two threads'
 * writes one at a time (IMMEDIATE transactions).
 */
export class ThreadKeywordAdmitter implements MemoryItemAdmitter {
  readonly runsIn: MemoryIndexerPlacement = 'thread';
  private readonly thread: MemoryThread;
  private model: EmbeddingModelInfo | undefined;

  constructor(config: MemoryConfig) {
    this.thread = new MemoryThread({ config, role: 'keywords' });
  }

  async open(model: EmbeddingModelInfo): Promise<void> {
    this.model = model;
    await this.thread.run('openIndex', model);
  }

  async admit(items: readonly MemoryItem[]): Promise<number> {
    if (items.length === 0) return 0;
    if (!this.model) throw new Error('The memory keyword thread was used before open(model): the indexer opens it with the model its writer loaded.');
    // The model goes with every batch: a thread tinypool restarted after a crash opens its index from it.
    return this.thread.run('admit', { model: this.model, items });
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

/**
 * The embedding model in a worker thread of its own, for recall's questions: a question is
 * embedded without blocking the event loop (tokenizing and pooling run in JavaScript) and
 * without waiting behind an indexing batch.
 */
export class ThreadEmbeddingModel implements EmbeddingModel {
  private readonly thread: MemoryThread;
  private opened: Promise<EmbeddingModelInfo> | undefined;

  constructor(config: MemoryConfig) {
    this.thread = new MemoryThread({ config, role: 'embedder' });
  }

  info(): Promise<EmbeddingModelInfo> {
    this.opened ??= this.thread.run<EmbeddingModelInfo>('open', null);
    this.opened.catch(() => (this.opened = undefined));
    return this.opened;
  }

  embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    return this.thread.run('embed', { texts: [...texts], options });
  }

  close(): Promise<void> {
    this.opened = undefined;
    return this.thread.close();
  }
}
