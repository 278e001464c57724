import { LRUCache } from 'lru-cache';

/**
 * When a stream's next snapshot falls due: each time it crosses a multiple of its spacing
 * (`snapshotSpacing`), and, with `everySeconds`, when that long passed since this process last
 * wrote one of it.
 */
export class SnapshotCadence {
  /** When this process last wrote a snapshot of a stream, and at which version (counted as sizes: see SessionRepository). */
  private readonly last = new LRUCache<string, { at: number; version: number }>({ maxSize: 10_000, sizeCalculation: () => 1 });

  constructor(
    private readonly every: number,
    private readonly everySeconds = 0,
  ) {}

  /** Whether the write that took the stream from `before` to `after` calls for a snapshot. */
  due(streamId: string, before: number, after: number): boolean {
    const spacing = snapshotSpacing(this.every, after);
    if (spacing > 0 && Math.floor(after / spacing) > Math.floor(before / spacing)) return true;
    if (this.everySeconds <= 0) return false;
    const last = this.last.get(streamId);
    if (!last) {
      this.last.set(streamId, { at: Date.now(), version: before });
      return false;
    }
    return after > last.version && Date.now() - last.at >= this.everySeconds * 1000;
  }

  /** A snapshot of the stream at `version` is being written now. */
  written(streamId: string, version: number): void {
    this.last.set(streamId, { at: Date.now(), version });
  }
}

/**
 * Events between two snapshots of a stream at `version`: `every`, doubled each time the stream passes 64 × that many
 * events. A head lists every sealed segment with its id filter (~2.8 bytes an event of the session), and every head
 * is kept until retention prunes it: written every 100 events, sessions of 40 000 events wrote 1 119 bytes of head an
 * event, and growing (many-sessions-cpu.bench.ts --head-bytes). Spaced this way, the spacing stays between 1/64 and
 * 1/32 of the stream's length, so heads cost ~90–180 bytes an event whatever the length (131 there), and a restore
 * folds at most 1/32 of the stream after its snapshot.
 * Powers of two of `every`: a multiple of the spacing is a multiple of the spacings before it.
 */
export function snapshotSpacing(every: number, version: number): number {
  if (every <= 0) return every;
  let spacing = every;
  while (version >= spacing * 64) spacing *= 2;
  return spacing;
}
