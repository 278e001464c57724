/**
 * Items handled per second over a recent window: how fast stage 2 drains its backlog (items embedded)
 * and how fast stage 1 fills it (items admitted), for the status route. The window starts at its first
 * batch's start (or `windowMs` ago, whichever is later), so a rate read soon after a start is not
 * diluted by the time before any work, and it falls to 0 once nothing was done for a whole window.
 */
export class ItemRate {
  private batches: { startedAt: number; endedAt: number; items: number }[] = [];

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A batch that began at `startedAt` (this clock's time) and handled `items` just now. */
  record(startedAt: number, items: number): void {
    if (items <= 0) return;
    const endedAt = this.now();
    this.batches.push({ startedAt, endedAt, items });
    this.forget(endedAt);
  }

  /** Items per second over the window (0 when none). */
  perSecond(): number {
    const now = this.now();
    this.forget(now);
    const first = this.batches[0];
    if (!first) return 0;
    const from = Math.max(now - this.windowMs, first.startedAt);
    const items = this.batches.reduce((n, batch) => n + batch.items, 0);
    return now > from ? (items * 1000) / (now - from) : 0;
  }

  private forget(now: number): void {
    const cutoff = now - this.windowMs;
    this.batches = this.batches.filter((batch) => batch.endedAt > cutoff);
  }
}
