import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '@rewind/domain';
import { Rewind } from './rewind';

/** A plugin with its own state, like seed 001's IPersistentComponent. */
function counter(name: string, persist: boolean | (() => boolean) = true) {
  const plugin = { count: 0, restored: [] as unknown[] };
  const definition = {
    name,
    persist,
    getState: () => ({ count: plugin.count }),
    restoreState: (state: { count: number } | undefined) => {
      plugin.restored.push(state);
      plugin.count = state?.count ?? 0;
    },
  };
  return { plugin, definition };
}

describe('component state in library mode (seed 001 plugin state)', () => {
  it('saves components at checkpoints, namespaced, and restores them on rollback and undo', async () => {
    const rewind = Rewind.inMemory();
    const cart = counter('cart');
    const clicks = counter('clicks');
    rewind.registerComponent(cart.definition).registerComponent(clicks.definition);
    const session = await rewind.startSession();
    cart.plugin.count = 2;
    clicks.plugin.count = 7;
    const first = await session.checkpoint('two-items');
    cart.plugin.count = 5;
    await session.checkpoint('five-items');
    expect((await session.state()).contextVars).toEqual({ 'component:cart': { count: 5 }, 'component:clicks': { count: 7 } });

    await session.rollbackTo('two-items');
    expect(cart.plugin.count).toBe(2);
    expect(clicks.plugin.count).toBe(7);
    expect((await session.state()).head).toBe(first);
    await rewind.close();
  });

  it('keeps a component that opts out of persistence out of the session, and never restores it', async () => {
    const rewind = Rewind.inMemory();
    const scratch = counter('scratch', () => false);
    rewind.registerComponent(scratch.definition);
    const session = await rewind.startSession();
    scratch.plugin.count = 3;
    await session.checkpoint('a');
    await session.say('user', 'hi');
    await session.undo();
    expect((await session.state()).contextVars).toEqual({});
    expect(scratch.plugin.restored).toEqual([]);
    expect(scratch.plugin.count).toBe(3);
    await rewind.close();
  });

  it('reads components back at any past version (time travel) after a restart, through snapshots', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-components-'));
    const versions: [number, number][] = [];
    const first = Rewind.open({ dataDir, snapshotEvery: 2 });
    const cart = counter('cart');
    first.registerComponent(cart.definition);
    const session = await first.startSession('shop');
    for (let n = 1; n <= 6; n++) {
      cart.plugin.count = n;
      versions.push([await session.saveComponents(), n]);
      await session.say('user', `step ${n}`);
    }
    await first.close();

    const second = Rewind.open({ dataDir, snapshotEvery: 2 });
    const again = counter('cart');
    second.registerComponent(again.definition);
    for (const [version, count] of versions) {
      await second.session('shop').restoreComponents(version);
      expect(again.plugin.count).toBe(count);
    }
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a component name outside the allowed characters, with a clear error', () => {
    const rewind = Rewind.inMemory();
    expect(() => rewind.registerComponent({ name: '../evil', getState: () => null, restoreState: () => undefined })).toThrow(DomainError);
    expect(() => rewind.registerComponent({ name: '', getState: () => null, restoreState: () => undefined })).toThrow('not a valid component name');
  });

  it('after any sequence of saves and undos, every component holds the state the session had at its head', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.record({ save: fc.nat(100) }), fc.record({ undo: fc.integer({ min: 1, max: 3 }) })), { maxLength: 12 }),
        async (ops) => {
          const rewind = Rewind.inMemory();
          const cart = counter('cart');
          rewind.registerComponent(cart.definition);
          const session = await rewind.startSession();
          for (const op of ops) {
            if ('save' in op) {
              cart.plugin.count = op.save;
              await session.saveComponents();
              await session.say('user', String(op.save));
            } else {
              const view = await session.state();
              const steps = Math.min(op.undo, view.head - 1);
              if (steps === 0) continue;
              await session.undo(steps);
            }
            const saved = (await session.state()).contextVars['component:cart'] as { count: number } | undefined;
            expect(cart.plugin.count).toBe(saved?.count ?? 0);
          }
          await rewind.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
