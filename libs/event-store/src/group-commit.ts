/**
 * Group commit: requests that arrive while the store is busy are sent together, one round
 * trip and one transaction for many, instead of queueing one by one for a connection. A
 * request alone goes at the next turn of the event loop, so a quiet store adds no wait.
 * Each item gets its own result or its own error (`flush` answers per item).
 */
export interface GroupCommitOptions<T> {
  /** Batches in flight at once (e.g. part of a connection pool). */
  maxInFlight: number;
  /** Items per batch. */
  maxItems: number;
  /** The size of an item against `maxSize` (e.g. its events). */
  sizeOf?: (item: T) => number;
  /** Total size per batch. */
  maxSize?: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

export class GroupCommitQueue<T, R> {
  private readonly waiting: Waiting<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<Settled<R>[]>,
    private readonly options: GroupCommitOptions<T>,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate: every request the current I/O phase produced joins this batch.
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.take();
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        if (this.waiting.length > 0) this.schedule();
      });
    }
  }

  private take(): Waiting<T, R>[] {
    const sizeOf = this.options.sizeOf ?? (() => 1);
    const maxSize = this.options.maxSize ?? Number.MAX_SAFE_INTEGER;
    let size = 0;
    let count = 0;
    while (count < this.waiting.length && count < this.options.maxItems) {
      const next = sizeOf(this.waiting[count]!.item);
      if (count > 0 && size + next > maxSize) break;
      size += next;
      count++;
    }
    return this.waiting.splice(0, count);
  }

  private async send(batch: Waiting<T, R>[]): Promise<void> {
    let results: Settled<R>[];
    try {
      results = await this.flush(batch.map((w) => w.item));
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    batch.forEach((w, i) => {
      const result = results[i];
      if (!result) w.reject(new Error(`Group commit answered ${results.length} of ${batch.length} requests.`));
      else if (result.ok) w.resolve(result.value);
      else w.reject(result.error);
    });
  }
}
