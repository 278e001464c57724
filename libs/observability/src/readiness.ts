import { type SubscriberProgress, SubscriberStallWatch } from './stall-watch';

/** One condition of readiness. `run` resolves with a short detail when it holds, and throws a sentence saying what is wrong when not. */
export interface ReadinessCheck {
  name: string;
  run(): Promise<string>;
}

export interface CheckOutcome {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Readiness {
  ready: boolean;
  checks: CheckOutcome[];
}

/** Runs every check at once; one that does not answer within `timeoutMs` fails (a hung database must not hang the probe). */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs: number): Promise<Readiness> {
  const outcomes = await Promise.all(
    checks.map(async (check): Promise<CheckOutcome> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return { name: check.name, ok: true, detail: await Promise.race([check.run(), timeout]) };
      } catch (error) {
        return { name: check.name, ok: false, detail: error instanceof Error ? error.message : String(error) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: outcomes.every((o) => o.ok), checks: outcomes };
}

/** The store answers a read of its head. */
export function storeReachable(lastPosition: () => Promise<number>): ReadinessCheck {
  return {
    name: 'store',
    run: async () => {
      try {
        return `reachable (head at global position ${await lastPosition()})`;
      } catch (error) {
        throw new Error(
          `the event store does not answer (${error instanceof Error ? error.message : String(error)}); check that the database is up and reachable`,
          { cause: error },
        );
      }
    },
  };
}

/** Every schema this process needs is at its latest migration. */
export function migrationsApplied(pending: () => Promise<string[]>): ReadinessCheck {
  return {
    name: 'migrations',
    run: async () => {
      const names = await pending();
      if (names.length === 0) return 'all applied';
      throw new Error(`migrations not applied: ${names.join(', ')}; restart a Rewind process (it applies them at start) or run the migrations job`);
    },
  };
}

/** No subscriber of the global log is behind without moving for longer than the watch's threshold. */
export function subscribersMoving(watch: SubscriberStallWatch, progress: () => Promise<SubscriberProgress[]>): ReadinessCheck {
  return {
    name: 'subscribers',
    run: async () => {
      const verdicts = (await progress()).map((p) => watch.observe(p));
      const stalled = verdicts.filter((v) => v.stalled);
      if (stalled.length > 0) {
        const list = stalled.map((v) => `${v.name} (${v.lag} behind, stuck at ${v.position} for ${Math.round(v.stuckForMs / 1000)} s)`).join(', ');
        throw new Error(`stalled past ${watch.thresholdMs / 1000} s: ${list}; see this process's log for the subscriber's last error`);
      }
      return verdicts.length === 0 ? 'none in this process' : verdicts.map((v) => `${v.name}: ${v.lag} behind`).join(', ');
    },
  };
}
