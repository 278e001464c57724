/** Where one subscriber of the global log (a projection, the relay) stands when asked. */
export interface SubscriberProgress {
  name: string;
  /** Its checkpoint: the global position of the last event it handled. */
  position: number;
  /** How far it is behind the log's head (0: up to date). */
  lag: number;
}

export interface StallVerdict extends SubscriberProgress {
  stalled: boolean;
  /** How long it has been behind without moving, in ms (0 when up to date or moving). */
  stuckForMs: number;
}

/**
 * Tells a subscriber that is merely behind (it moves) from one that is stalled: behind, and its
 * checkpoint has not moved for longer than the threshold. Lag alone cannot say it — a burst of
 * writes puts every healthy subscriber behind for a moment.
 */
export class SubscriberStallWatch {
  private readonly lastMove = new Map<string, { position: number; since: number }>();

  constructor(
    readonly thresholdMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(thresholdMs > 0)) throw new RangeError(`The stall threshold must be a positive number of ms; got ${thresholdMs}.`);
  }

  observe(progress: SubscriberProgress): StallVerdict {
    const now = this.now();
    const seen = this.lastMove.get(progress.name);
    // Up to date, first seen, or moved since last asked: the clock starts again.
    if (progress.lag <= 0 || !seen || seen.position !== progress.position) {
      this.lastMove.set(progress.name, { position: progress.position, since: now });
      return { ...progress, stalled: false, stuckForMs: 0 };
    }
    const stuckForMs = Math.max(0, now - seen.since);
    return { ...progress, stalled: stuckForMs > this.thresholdMs, stuckForMs };
  }
}
