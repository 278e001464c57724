import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DomainError } from '@rewind/domain';
import { CompensationError, Rewind, RollbackNeedsAttention } from './rewind';

describe('library mode: run a step, declare its undo, roll back', () => {
  it('undoes side effects newest first and makes the earlier state current (seed 000 in-process)', async () => {
    const rewind = Rewind.inMemory();
    const world: string[] = [];
    const session = await rewind.startSession('order-help');
    await session.say('user', 'Change my delivery address');
    const afterCheck = await session.checkpoint('permission-checked');
    await session.step('update_address', { order: 'A-1', from: 'Old St 1', to: 'New St 9' }, (i) => void world.push(`address ${i.order} -> ${i.to}`), {
      undo: ({ input }) => void world.push(`address ${input.order} -> ${input.from}`),
    });
    const sent = await session.step(
      'send_email',
      { to: 'ana@example.com' },
      () => {
        world.push('mail sent');
        return { messageId: 'm-1' };
      },
      { kind: 'compensable', undo: ({ output }) => void world.push(`correction for ${output!.messageId}`) },
    );
    expect(sent).toEqual({ messageId: 'm-1' });

    const state = await session.rollbackTo('permission-checked');
    expect(world).toEqual(['address A-1 -> New St 9', 'mail sent', 'correction for m-1', 'address A-1 -> Old St 1']);
    expect(state.head).toBe(afterCheck);
    expect(state.toolCalls).toEqual([]);
    await rewind.close();
  });

  it("records the agent's thoughts on the timeline and keeps them out of the context unless asked for", async () => {
    const rewind = Rewind.inMemory();
    const session = await rewind.startSession('thinking');
    await session.say('user', 'Find me a hotel in Lisbon');
    const version = await session.think('May is busy: search first, then ask about budget.', ['search', 'ask budget']);
    await session.say('agent', 'Searching now.');
    expect((await session.state()).thoughts).toEqual([
      expect.objectContaining({ content: 'May is busy: search first, then ask about budget.', steps: ['search', 'ask budget'], version }),
    ]);
    expect((await session.context()).items.map((i) => i.kind)).toEqual(['message', 'message']);
    expect((await session.context({ includeThoughts: true })).items.map((i) => i.kind)).toEqual(['message', 'thought', 'message']);
    await rewind.close();
  });

  it('records a failing step as failed, rethrows, and leaves nothing to undo for it', async () => {
    const rewind = Rewind.inMemory();
    const session = await rewind.startSession();
    await expect(session.step('flaky', { n: 1 }, () => Promise.reject(new Error('upstream down')), { undo: () => undefined })).rejects.toThrow('upstream down');
    const call = (await session.state()).toolCalls[0]!;
    expect(call).toMatchObject({ status: 'failed', error: 'upstream down' });
    await session.undo();
    expect((await session.state()).status).toBe('active');
    await rewind.close();
  });

  it('surfaces an undo that fails for good as RollbackNeedsAttention, with the session locked', async () => {
    const rewind = Rewind.inMemory();
    const session = await rewind.startSession();
    await session.step('charge', { eur: 5 }, () => ({ id: 'c1' }), {
      kind: 'compensable',
      undo: () => {
        throw new CompensationError('refund window closed', false);
      },
    });
    await expect(session.undo()).rejects.toBeInstanceOf(RollbackNeedsAttention);
    expect((await session.state()).status).toBe('needs_attention');
    await expect(session.say('user', 'hi')).rejects.toBeInstanceOf(DomainError);
    await rewind.close();
  });

  it('persists in the embedded store and reads the session back after reopening', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-lib-'));
    const first = Rewind.open({ dataDir });
    const session = await first.startSession('kept');
    await session.remember('city', 'Lisbon');
    await first.close();
    const second = Rewind.open({ dataDir });
    expect((await second.session('kept').state()).memory).toEqual({ city: 'Lisbon' });
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});
