import type { Logger } from '@rewind/config';
import type { EventStore } from '@rewind/event-store';
import {
  countEventsAfter,
  SubscriptionLoop,
  type CheckpointStore,
  type ExclusivityPolicy,
  type LogBatch,
  type SubscriptionHub,
} from '@rewind/event-store/subscriptions';
import type { EmbeddingModel, EmbeddingModelInfo } from './embedding-model';
import { MemoryItemExtractor, type MemoryItem, type MemorySourceEvent } from './memory-item';
import { LocalItemWriter, type MemoryIndexerPlacement, type MemoryItemAdmitter, type MemoryItemWriter } from './memory-item-writer';
import { ItemRate } from './item-rate';
import { hadSpareCore, machineCpuTimes, type CpuTimes } from './machine-load';
import { effectivePolicies, policyKeyOf, type MemoryPolicyStore } from './memory-policy';
import { TurnContext } from './turn-context';
import { modelCheckpointName, ModelCheckpoints } from './model-checkpoints';
import type { MemoryScope, ModelItems, VectorIndex } from './vector-index';

/** @deprecated The one Logger of @rewind/config. */
export type MemoryIndexerLogger = Logger;

export interface MemoryIndexerOptions {
  /** The index (counted for status; written to unless a writer is given). */
  index: VectorIndex;
  /** The model that embeds items in this thread (unless a writer is given). */
  model?: EmbeddingModel;
  /** Embeds and writes items elsewhere, e.g. in a worker thread (default: here, with `model` and `index`). */
  writer?: MemoryItemWriter;
  /**
   * With two stages: makes items searchable by keywords elsewhere, e.g. in a worker thread with its
   * own connection to the index (`@rewind/memory/runtime`'s ThreadKeywordAdmitter); default: `index.admit` here.
   */
  admitter?: MemoryItemAdmitter;
  policies: MemoryPolicyStore;
  extractor?: MemoryItemExtractor;
  /** For the embedded subscription (start()): the global log and where the indexer got to in it. */
  store?: EventStore;
  checkpoints?: CheckpointStore;
  /** The process's subscription hub (shared reads of the log, woken by commits). */
  hub?: SubscriptionHub;
  /** Checkpoint name (default `memory-indexer`). */
  name?: string;
  /**
   * How many processes index at once (default `none`: each its own index, e.g. a SQLite file). An index
   * shared by the deployment (PostgreSQL) is written by one: `lock` (a PostgreSQL advisory lock) —
   * whichever process holds it follows the log and embeds stage 2's backlog; the others stand by
   * (they recall from the same index) and take over when its holder dies.
   */
  exclusivity?: ExclusivityPolicy;
  /** Events read per round (default 256). */
  batchSize?: number;
  /** The largest round while a backlog lasts (default 4 × batchSize): after a full round the next reads twice as many. */
  maxBatchSize?: number;
  /** How often an idle indexer looks for new events (default 100 ms; a commit in this process wakes it at once through the hub). */
  pollIntervalMs?: number;
  /**
   * The share of one core the background loop (start()) may keep busy embedding while the
   * machine is busy, from 0.05 to 1 (default 1): after a batch that took t ms it rests
   * t × (1 − share) / share ms, so under a burst the lag grows instead of the writes slowing
   * down, and catches up after. It does not rest when work at normal priority left a core idle
   * since the last batch (the indexer then only takes what nothing else wants).
   */
  cpuShare?: number;
  /**
   * Index in two stages when the index and writer can (default true; SQLite can, Qdrant cannot):
   * a batch of the log is made searchable by keywords at once (rows and FTS5, no model), and its
   * items are embedded afterwards, newest first, as the model has CPU (paced by cpuShare). Under
   * a burst the keyword lag stays short while the vector lag (pendingVectors) grows and catches up;
   * the newest items get their vectors first, the older backlog waits (found by keywords meanwhile).
   * false: each batch is embedded before the checkpoint moves, as in one stage.
   */
  twoStage?: boolean;
  /** Items embedded per stage-2 batch (default 128). */
  vectorBatchSize?: number;
  /** How busy the machine is (default: the kernel's counters, os.cpus()). */
  cpuTimes?: () => CpuTimes;
  logger?: MemoryIndexerLogger;
}

export type MemoryIndexerState = 'idle' | 'running' | 'stopping' | 'stopped';

export interface MemoryIndexerStatus {
  state: MemoryIndexerState;
  /** `thread`: embedding and index writes run in a worker thread; `process`: on the caller's event loop. */
  runsIn: MemoryIndexerPlacement;
  /** Where items are made searchable by keywords (stage 1's index writes; with one stage, where the writer runs). */
  keywordsRunIn: MemoryIndexerPlacement;
  /** The embedding model; with language routing (the default local models), the default one, and `models` lists each. */
  model: string | null;
  dimensions: number | null;
  /**
   * The models in use and the items each holds: one, or with language routing (the default local
   * models) one per language (a model with 0 items has not been needed, nor loaded, yet).
   */
  models: ModelItems[];
  /** Last global position indexed (embedded subscription), or the highest seen (Kafka). */
  checkpoint: number;
  lastPosition: number;
  /** Committed events not yet indexed (with two stages: not yet searchable by keywords; a count of events; Kafka: highest seen − checkpoint). */
  lag: number;
  /** `2`: items are searchable by keywords first and embedded after (pendingVectors); `1`: embedded before the checkpoint moves. */
  stages: 1 | 2;
  /** Items searchable by keywords but not yet embedded (stage 2's backlog; 0 with one stage). */
  pendingVectors: number;
  /** The global position of the oldest item awaiting its vector (null when none). */
  oldestPendingVectorPosition: number | null;
  /** Stage 2's drain rate: items this process embedded per second over the last minute, rounded (rests included; 0 when idle). */
  vectorsPerSecond: number;
  /** Stage 2's inflow: items this process made searchable by keywords per second over the last minute, rounded (0 with one stage). */
  admittedPerSecond: number;
  /**
   * Seconds until every pending item has its vector at these two rates (pending ÷ (drain − inflow)); null when
   * none is pending, or when the backlog is not shrinking (writes as fast as the model or faster: the newest items
   * are embedded first, the older ones wait, searchable by keywords).
   */
  pendingVectorsDrainSeconds: number | null;
  /** Items written by this process since it started (with two stages: made searchable by keywords). */
  indexedItems: number;
  /** Items this process embedded since it started (with two stages; with one, as indexedItems). */
  embeddedItems: number;
  /** Events this process looked at and found nothing worth indexing in (greetings, bookkeeping, policy `none`). */
  skippedEvents: number;
  items: number;
  lastError: string | null;
}

const silent: MemoryIndexerLogger = { log() {}, warn() {}, error() {} };

/** How often a process standing by (another holds the indexer's lock) asks for the lock again, for stage 2. */
const STANDBY_POLL_MS = 1_000;

/**
 * Indexes memory items off the write path. Embedded: a subscriber of the store's global log
 * from a stored checkpoint (the checkpoint moves only after a batch is in the index, so a
 * crash re-indexes a batch, never skips one; upserts by item id make that harmless).
 * Distributed: the worker feeds it `rewind.events` through `indexEvents`.
 *
 * Two stages (an index with `admit`, e.g. SQLite): a batch is in the index once its items are
 * searchable by keywords (a cheap write, no model), so the checkpoint — and the keyword lag —
 * keeps up with a burst the model cannot; stage 2 embeds the items the index holds without
 * vectors, newest first, in the writer (a worker thread by default). That backlog is a table of
 * the index: it outlives a restart, and a vector is attached only to an item still awaiting one.
 */
export class MemoryIndexer {
  private readonly extractor: MemoryItemExtractor;
  private readonly name: string;
  private readonly logger: MemoryIndexerLogger;
  private readonly writer: MemoryItemWriter;
  /** The checkpoint store, per model (ModelCheckpoints). */
  private readonly checkpoints: CheckpointStore | undefined;
  private readonly turnContext = new TurnContext();
  private cpuAtLastBatch: CpuTimes | undefined;
  private state: MemoryIndexerState = 'idle';
  private loop: SubscriptionLoop | undefined;
  /** Cuts a CPU rest short when the indexer stops. */
  private wake: (() => void) | undefined;
  private opened: Promise<EmbeddingModelInfo> | undefined;
  private highestSeen = 0;
  private indexedItems = 0;
  private embeddedItems = 0;
  /** Stage 2's drain and stage 1's inflow, for the status. */
  private readonly embeddedRate = new ItemRate();
  private readonly admittedRate = new ItemRate();
  /** Stage 2: its loop (under start() or startEmbedding()), what wakes it when idle, and its last error. */
  private vectorLoop: Promise<void> | undefined;
  private wakeIdle: (() => void) | undefined;
  private vectorError: string | null = null;
  private skippedEvents = 0;
  /** Batches being embedded, and the scopes shredded meanwhile (those batches must not write them back). */
  private batchesInFlight = 0;
  private shredsDuringBatches: { scope: MemoryScope; generation: number }[] = [];
  private shredGeneration = 0;

  constructor(private readonly options: MemoryIndexerOptions) {
    this.extractor = options.extractor ?? new MemoryItemExtractor();
    this.name = options.name ?? 'memory-indexer';
    this.logger = options.logger ?? silent;
    if (!options.writer && !options.model) throw new Error('A memory indexer needs an embedding model, or a writer that embeds elsewhere.');
    this.writer = options.writer ?? new LocalItemWriter({ model: options.model!, index: options.index });
    this.checkpoints =
      options.checkpoints &&
      new ModelCheckpoints(options.checkpoints, async () => {
        const info = await this.open();
        return { id: info.id, holdsItems: () => this.holdsItems(info) };
      });
  }

  /** The name this indexer's position is kept under for its model (ModelCheckpoints); loads the model. */
  async checkpointName(): Promise<string> {
    return modelCheckpointName(this.name, (await this.open()).id);
  }

  /** Whether the index holds items of this model (with language routing: of its first, default-language model). */
  private async holdsItems(info: EmbeddingModelInfo): Promise<boolean> {
    const { index } = this.options;
    const first = info.spaces?.[0];
    if (!first || !index.models) return (await index.count()) > 0;
    return (await index.models()).some((model) => model.id === first.id && model.items > 0);
  }

  /** Loads the model (downloading it on first use) and opens the index for it (here too when a writer runs elsewhere: status counts items here). */
  open(): Promise<EmbeddingModelInfo> {
    this.opened ??= (async () => {
      const info = await this.writer.open();
      if (this.options.writer) await this.options.index.open(info);
      await this.options.admitter?.open(info);
      return info;
    })();
    this.opened.catch(() => (this.opened = undefined));
    return this.opened;
  }

  /** Whether this indexer runs in two stages: asked for (default), and both the index and the writer can. */
  get twoStage(): boolean {
    const { index } = this.options;
    return this.options.twoStage !== false && !!(index.admit && index.pendingItems && index.attachVectors && index.pendingVectors && this.writer.embedPending);
  }

  /**
   * Indexes the items of these events (idempotent: an event seen twice is written twice, as one item).
   * With two stages, they are embedded before this returns too, unless stage 2 runs in the
   * background (start() or startEmbedding()): then they are searchable by keywords when it returns.
   */
  async indexEvents(events: readonly MemorySourceEvent[]): Promise<number> {
    const indexed = await this.admitEvents(events);
    if (this.twoStage && !this.vectorLoop) await this.embedAllPending();
    return indexed;
  }

  /** Stage 1 (or the only stage): the batch is in the index when this returns, so the checkpoint may move past it. */
  private async admitEvents(events: readonly MemorySourceEvent[]): Promise<number> {
    this.batchesInFlight++;
    try {
      return await this.indexBatch(events);
    } finally {
      if (--this.batchesInFlight === 0) this.shredsDuringBatches = [];
    }
  }

  /**
   * Crypto-shredding of a session or tenant (`DataShredded`, or the process that shreds):
   * removes its items from the index now, and keeps a batch being embedded meanwhile from
   * writing them back.
   */
  async shred(scope: MemoryScope): Promise<number> {
    this.turnContext.forget(scope);
    if (this.batchesInFlight > 0) this.shredsDuringBatches.push({ scope, generation: ++this.shredGeneration });
    return this.options.index.shredScope(scope);
  }

  private async indexBatch(events: readonly MemorySourceEvent[]): Promise<number> {
    const generation = this.shredGeneration;
    await this.open();
    // Items of each event first (in order: turn context, shreds), then every session's policy in one
    // read of the store: on PostgreSQL, two round trips per session of the batch, one after another,
    // held the keyword stage to ~300 events/s under 32 writers (the soak of issue 26).
    let found: { event: MemorySourceEvent; items: MemoryItem[] }[] = [];
    for (const event of events) {
      this.highestSeen = Math.max(this.highestSeen, event.globalPosition);
      if (event.type === 'DataShredded') {
        // What the session said before its shred is forgotten, in this batch and in the index; what it says later is new.
        const scope = { tenantId: event.metadata.tenantId, sessionId: event.metadata.sessionId };
        found = found.map((f) => ({ ...f, items: f.items.filter((item) => !inScope(item, scope)) }));
        this.turnContext.forget(scope);
        await this.options.index.shredScope(scope);
        this.skippedEvents++;
        continue;
      }
      const itemsOfEvent = this.turnContext.attach(event, this.extractor.itemsOf(event));
      if (itemsOfEvent.length === 0) this.skippedEvents++;
      else found.push({ event, items: itemsOfEvent });
    }
    const policies = await effectivePolicies(
      this.options.policies,
      found.map((f) => f.event.metadata),
    );
    let items: MemoryItem[] = [];
    for (const f of found) {
      if (policies.get(policyKeyOf(f.event.metadata.tenantId, f.event.metadata.sessionId)) === 'none') this.skippedEvents++;
      else items.push(...f.items);
    }
    if (items.length === 0) return 0;
    // Shreds that ran while this batch was read are kept out of it; one that runs while the writer
    // embeds it is applied again after the write, so the batch cannot bring the scope back.
    const shredBefore = this.shredsDuringBatches.filter((s) => s.generation > generation).map((s) => s.scope);
    items = items.filter((item) => !shredBefore.some((scope) => inScope(item, scope)));
    if (items.length === 0) return 0;
    if (this.twoStage) {
      const started = performance.now();
      const admitted = await (this.options.admitter ? this.options.admitter.admit(items) : this.options.index.admit!(items));
      // New items only: a redelivered event's are in the backlog (or embedded) already.
      this.admittedRate.record(started, admitted);
      this.wakeIdle?.();
    } else {
      await this.writer.write(items);
    }
    const shredMeanwhile = this.shredsDuringBatches.filter((s) => s.generation > generation).map((s) => s.scope);
    for (const scope of shredMeanwhile) if (items.some((item) => inScope(item, scope))) await this.options.index.shredScope(scope);
    const indexed = items.filter((item) => !shredMeanwhile.some((scope) => inScope(item, scope))).length;
    this.indexedItems += indexed;
    return indexed;
  }

  /**
   * Indexes everything committed up to now (one pass, unpaced; the subscription of start()
   * does this continuously, paced by cpuShare).
   */
  async catchUp(options: { vectors?: boolean } = {}): Promise<void> {
    await this.subscription().catchUp();
    // `vectors: false`: stage 1 only (everything searchable by keywords; the vectors are left to stage 2).
    if (this.twoStage && options.vectors !== false) await this.embedAllPending();
  }

  /** One stage-2 batch, unpaced: embeds up to `limit` items awaiting vectors, newest first; tells how many (0: none left, or one stage). */
  async embedPending(limit = this.options.vectorBatchSize ?? 128): Promise<number> {
    if (!this.twoStage) return 0;
    await this.open();
    const started = performance.now();
    const embedded = await this.writer.embedPending!(limit);
    this.embeddedItems += embedded;
    this.embeddedRate.record(started, embedded);
    return embedded;
  }

  /** Stage 2 until nothing awaits a vector (unpaced). */
  private async embedAllPending(): Promise<void> {
    while ((await this.embedPending()) > 0);
  }

  /**
   * Stage 2 in the background: embeds what awaits a vector, newest first, paced like one stage
   * (cpuShare); idle, it waits for stage 1 to admit more. An error is reported in the status and
   * retried with a growing delay; the backlog is in the index, so nothing is lost meanwhile.
   */
  private async embedInBackground(): Promise<void> {
    let delayMs = 400;
    while (this.state === 'running') {
      try {
        if (!(await this.holdsLock())) {
          await this.idle(STANDBY_POLL_MS);
          continue;
        }
        await this.open();
        const started = performance.now();
        const embedded = await this.embedPending();
        this.vectorError = null;
        delayMs = 400;
        if (embedded === 0) await this.idle(this.options.pollIntervalMs ?? 100);
        else await this.pace(started);
      } catch (error) {
        this.vectorError = error instanceof Error ? error.message : String(error);
        this.logger.error(`Embedding memory items failed: ${this.vectorError} (they stay searchable by keywords; retrying in ${delayMs} ms)`);
        await this.rest(delayMs);
        delayMs = Math.min(30_000, delayMs * 2);
      }
    }
  }

  /** Whether this process may write the index now: always, unless the indexer is exclusive and another process holds its lock. */
  private async holdsLock(): Promise<boolean> {
    const { exclusivity } = this.options;
    return exclusivity?.kind !== 'lock' || exclusivity.lock.tryAcquire();
  }

  /** Waits for stage 1 to admit items (or `ms`, in case another process admitted them). */
  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeIdle?.(), ms);
      this.wakeIdle = () => {
        clearTimeout(timer);
        this.wakeIdle = undefined;
        resolve();
      };
    });
  }

  /** Stage 2 alone in the background, for an indexer fed by indexEvents (Kafka): a batch is then acknowledged once searchable by keywords. */
  startEmbedding(): void {
    if (!this.twoStage || this.vectorLoop) return;
    if (this.state !== 'running') this.state = 'running';
    this.vectorLoop = this.embedInBackground();
  }

  /** The indexer's follower of the global log (from its checkpoint; in every process that indexes, or under `exclusivity` in one). */
  private subscription(): SubscriptionLoop {
    const { store } = this.options;
    const { checkpoints } = this;
    if (!store || !checkpoints) throw new Error('This memory indexer has no event store and checkpoint store: it is fed by indexEvents (Kafka) instead.');
    if (this.loop) return this.loop;
    const subscription = {
      name: this.name,
      checkpoint: { kind: 'store' as const, store: checkpoints },
      exclusivity: this.options.exclusivity ?? { kind: 'none' as const },
      handle: (batch: LogBatch) => this.indexPaced(batch),
    };
    const options = {
      batchSize: this.options.batchSize ?? 256,
      // Under a backlog, fewer and larger rounds: each costs a read of the log, a policy read and a
      // checkpoint besides its events (the keyword stage's transaction holds the event loop longer, a bounded 4×).
      maxBatchSize: this.options.maxBatchSize ?? 4 * (this.options.batchSize ?? 256),
      idleDelayMs: this.options.pollIntervalMs ?? 100,
      // Two stages: the keyword stage reads the log and extracts on this event loop (its index writes too,
      // without an admitter), so commits gather for 50 ms into one batch (one read of the log, one
      // transaction) instead of costing each write a batch of its own.
      lingerMs: this.twoStage ? 50 : 0,
      backoff: { initialDelayMs: 400, maxDelayMs: 30_000 },
      // Methods, not a spread: a class's logger (Nest's) keeps them on its prototype.
      logger: {
        log: (message: string) => this.logger.log(message),
        warn: (message: string) => this.logger.warn(message),
        error: (message: string) => this.logger.error(`${message} (memory indexing: writes are not affected, recall misses what is not indexed yet)`),
      },
    };
    this.loop = this.options.hub ? this.options.hub.add(subscription, options) : new SubscriptionLoop(store, subscription, options);
    return this.loop;
  }

  /**
   * One batch of the subscription. With one stage it embeds, so under start() it then rests, and
   * embedding keeps to its share of a busy machine; with two, stage 2 rests instead.
   */
  private async indexPaced(batch: LogBatch): Promise<void> {
    const started = performance.now();
    await this.admitEvents(batch.events);
    if (!this.twoStage) await this.pace(started);
  }

  /** After work begun at `started`, rests so that it keeps to cpuShare of a busy machine. */
  private async pace(started: number): Promise<void> {
    const share = Math.min(1, Math.max(0.05, this.options.cpuShare ?? 1));
    // The rest follows every batch, a short one too: steady writes never fill a batch, and would go unpaced.
    if (share < 1 && this.state === 'running' && this.machineBusy()) await this.rest(((performance.now() - started) * (1 - share)) / share);
  }

  /** Whether work at normal priority kept the machine from having a core spare since the last look. */
  private machineBusy(): boolean {
    const now = (this.options.cpuTimes ?? machineCpuTimes)();
    const before = this.cpuAtLastBatch;
    this.cpuAtLastBatch = now;
    return before === undefined || !hadSpareCore(before, now);
  }

  /** Starts following the global log in the background. */
  start(): void {
    const loop = this.subscription();
    if (this.state === 'running') return;
    this.state = 'running';
    loop.start();
    this.startEmbedding();
  }

  /** Looks for new events now (e.g. right after a commit in this process). */
  notify(): void {
    this.loop?.poke();
  }

  /** Stops the loop after the batch in hand (its checkpoint saved), then closes the writer (a worker thread ends). */
  async stop(): Promise<void> {
    if (this.state === 'running') this.state = 'stopping';
    this.wake?.();
    this.wakeIdle?.();
    await this.loop?.stop();
    await this.vectorLoop;
    this.vectorLoop = undefined;
    // Stage 2 may hold the lock without a subscription (fed by Kafka): another process takes over now, not when this one exits.
    if (this.options.exclusivity?.kind === 'lock') await this.options.exclusivity.lock.release().catch(() => undefined);
    this.state = 'stopped';
    await this.writer.close();
    await this.options.admitter?.close();
  }

  private rest(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  async status(): Promise<MemoryIndexerStatus> {
    // The position is kept per model: the model is loaded to tell it (when it cannot be, the position kept under the plain name).
    const info = await this.open().catch(() => undefined);
    const { store } = this.options;
    const checkpoints = info ? this.checkpoints : this.options.checkpoints;
    const lastPosition = store ? await store.lastPosition() : this.highestSeen;
    const checkpoint = checkpoints ? await checkpoints.load(this.name) : this.highestSeen;
    const lag = store && checkpoints ? await countEventsAfter(store, checkpoint) : Math.max(0, lastPosition - checkpoint);
    const twoStage = this.twoStage;
    const pending = info && twoStage ? await this.options.index.pendingVectors!() : { items: 0, oldestPosition: null };
    const vectorsPerSecond = twoStage ? Math.round(this.embeddedRate.perSecond()) : 0;
    const admittedPerSecond = twoStage ? Math.round(this.admittedRate.perSecond()) : 0;
    const shrinking = vectorsPerSecond - admittedPerSecond;
    return {
      state: this.state,
      runsIn: this.writer.runsIn,
      keywordsRunIn: twoStage ? (this.options.admitter?.runsIn ?? 'process') : this.writer.runsIn,
      // With language routing, the default model (the one every language but those routed elsewhere uses); `models` lists them all.
      model: (info?.spaces?.[0] ?? info)?.id ?? null,
      dimensions: (info?.spaces?.[0] ?? info)?.dimensions ?? null,
      checkpoint,
      lastPosition,
      lag,
      stages: twoStage ? 2 : 1,
      pendingVectors: pending.items,
      oldestPendingVectorPosition: pending.oldestPosition,
      vectorsPerSecond,
      admittedPerSecond,
      pendingVectorsDrainSeconds: pending.items > 0 && shrinking > 0 ? Math.ceil(pending.items / shrinking) : null,
      indexedItems: this.indexedItems,
      embeddedItems: twoStage ? this.embeddedItems : this.indexedItems,
      skippedEvents: this.skippedEvents,
      items: info ? await this.options.index.count() : 0,
      models: !info
        ? []
        : this.options.index.models
          ? await this.options.index.models()
          : [{ id: info.id, dimensions: info.dimensions, items: await this.options.index.count() }],
      lastError: this.loop?.runtime().lastError ?? this.vectorError,
    };
  }
}

function inScope(item: MemoryItem, scope: MemoryScope): boolean {
  return item.tenantId === scope.tenantId && (scope.sessionId === undefined || item.sessionId === scope.sessionId);
}

/** Sets a memory policy; switching a session (or tenant) to `none` also removes its items from the index (every model's). */
export async function setMemoryPolicy(
  deps: { policies: MemoryPolicyStore; index: VectorIndex; indexer?: MemoryIndexer },
  tenantId: string,
  sessionId: string | undefined,
  policy: 'persistent' | 'none',
): Promise<{ removedItems: number }> {
  await deps.policies.set(tenantId, sessionId, policy);
  if (policy !== 'none') return { removedItems: 0 };
  // Removed like a shred (every model's tables, no text left in free space, not written back by a batch in flight).
  const scope = sessionId === undefined ? { tenantId } : { tenantId, sessionId };
  return { removedItems: deps.indexer ? await deps.indexer.shred(scope) : await deps.index.shredScope(scope) };
}
