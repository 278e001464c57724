import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKSPACE_UNDO_TARGET } from '@rewind/sagas/workspace';
import { Rewind, RollbackNeedsAttention, toolUndoHandler } from './rewind';
import { Workspace, WORKSPACE_TOOL, WorkspacePathError } from './workspace';

describe('workspace files as an effect (seed 004 RollbackManager)', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-ws-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('creates, updates and deletes files, and a rollback puts every file back as it was', async () => {
    const base = scratch();
    const root = join(base, 'ws');
    mkdirSync(root);
    writeFileSync(join(root, 'notes.md'), 'original');
    const rewind = Rewind.inMemory();
    const workspace = new Workspace(rewind, { root });
    const session = await rewind.startSession();
    const start = await session.checkpoint('start');

    await workspace.write(session, 'plan/itinerary.md', 'day 1: Lisbon');
    await workspace.write(session, 'notes.md', 'edited');
    await workspace.delete(session, 'notes.md');
    expect(workspace.read('plan/itinerary.md')).toBe('day 1: Lisbon');
    expect(existsSync(join(root, 'notes.md'))).toBe(false);

    await session.rollbackTo(start);
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('original');
    expect(existsSync(join(root, 'plan/itinerary.md'))).toBe(false);
    expect((await session.state()).toolCalls).toEqual([]);
    await rewind.close();
  });

  it("records its changes as the worker's workspace channel does: the same tool, undone by the same compensator", () => {
    expect(toolUndoHandler(WORKSPACE_TOOL)).toBe(WORKSPACE_UNDO_TARGET);
  });

  it('keeps each content once, by hash', async () => {
    const base = scratch();
    const rewind = Rewind.inMemory();
    const workspace = new Workspace(rewind, { root: join(base, 'ws') });
    const session = await rewind.startSession();
    const first = await workspace.write(session, 'a.txt', 'same');
    const second = await workspace.write(session, 'b.txt', 'same');
    await workspace.write(session, 'a.txt', 'same');
    expect(second).toBe(first);
    expect(readdirSync(workspace.blobDir)).toEqual([first]);
    await rewind.close();
  });

  it('refuses paths outside the root, absolute paths and symbolic links, and records nothing', async () => {
    const base = scratch();
    const root = join(base, 'ws');
    mkdirSync(join(base, 'outside'), { recursive: true });
    mkdirSync(root);
    symlinkSync(join(base, 'outside'), join(root, 'linked-dir'));
    writeFileSync(join(base, 'outside', 'secret'), 'keep out');
    symlinkSync(join(base, 'outside', 'secret'), join(root, 'linked-file'));
    const rewind = Rewind.inMemory();
    const workspace = new Workspace(rewind, { root });
    const session = await rewind.startSession();
    const before = (await session.events()).length;
    for (const path of ['../outside/x', 'a/../../outside/x', join(base, 'outside', 'x'), 'linked-dir/x', 'linked-file', '', 'a\u0000b']) {
      await expect(workspace.write(session, path, 'x'), path).rejects.toBeInstanceOf(WorkspacePathError);
    }
    await expect(workspace.delete(session, 'linked-file')).rejects.toThrow('symbolic link');
    expect(readFileSync(join(base, 'outside', 'secret'), 'utf8')).toBe('keep out');
    expect(readdirSync(join(base, 'outside'))).toEqual(['secret']);
    expect(await session.events()).toHaveLength(before);
    await rewind.close();
  });

  it('applies the retention policy; an undo whose content is gone says so and the session needs attention', async () => {
    const base = scratch();
    const rewind = Rewind.inMemory();
    const workspace = new Workspace(rewind, { root: join(base, 'ws'), retention: { maxAgeMs: 60_000 } });
    const session = await rewind.startSession();
    await workspace.write(session, 'a.txt', 'v1');
    await workspace.write(session, 'a.txt', 'v2');
    expect(workspace.prune(Date.now())).toBe(0);
    expect(workspace.prune(Date.now() + 61_000)).toBe(2);
    const failed = await session.undo().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RollbackNeedsAttention);
    expect((failed as RollbackNeedsAttention).rollback?.status).toBe('needs_attention');
    const why = (await session.events()).find((e) => e.type === 'CompensationFailed')?.data as { error: string };
    expect(why.error).toContain('no longer kept (the retention policy removed it)');
    expect((await session.state()).status).toBe('needs_attention');
    await rewind.close();
  });

  it('after any sequence of writes and deletes, a rollback to the start restores the exact files', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ file: fc.constantFrom('a.txt', 'd/b.txt', 'd/e/c.txt'), content: fc.option(fc.string({ maxLength: 20 }), { nil: null }) }), {
          minLength: 1,
          maxLength: 10,
        }),
        async (ops) => {
          const base = scratch();
          const root = join(base, 'ws');
          mkdirSync(join(root, 'd'), { recursive: true });
          writeFileSync(join(root, 'a.txt'), 'initial a');
          const rewind = Rewind.inMemory();
          const workspace = new Workspace(rewind, { root });
          const session = await rewind.startSession();
          const start = await session.checkpoint('start');
          for (const op of ops) {
            if (op.content !== null) await workspace.write(session, op.file, op.content);
            else if (workspace.read(op.file) !== null) await workspace.delete(session, op.file);
          }
          // Only deletes of missing files record nothing: the head is still the start.
          if ((await session.state()).head !== start) await session.rollbackTo(start);
          expect(workspace.read('a.txt')).toBe('initial a');
          expect(workspace.read('d/b.txt')).toBeNull();
          expect(workspace.read('d/e/c.txt')).toBeNull();
          await rewind.close();
        },
      ),
      { numRuns: 30 },
    );
  });
});
