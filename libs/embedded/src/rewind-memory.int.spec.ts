import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rewind } from './rewind';

describe('library mode: long-term memory', () => {
  it('recalls what the session knows, not what was undone, and again after redo (in memory)', async () => {
    const rewind = Rewind.inMemory();
    try {
      const session = await rewind.startSession('trip');
      await session.say('user', 'Book a table at Cervejaria Ramiro for Friday');
      await session.say('agent', 'Your table at Cervejaria Ramiro is booked for Friday at 8 pm.');
      const ask = async () => (await session.recall('When is our dinner reservation?')).hits.map((h) => h.text);
      expect(await ask()).toContain('Your table at Cervejaria Ramiro is booked for Friday at 8 pm.');
      await session.undo();
      expect(await ask()).not.toContain('Your table at Cervejaria Ramiro is booked for Friday at 8 pm.');
      await rewind.sessions.execute({ tenantId: 'local', actor: 'library' }, 'trip', { type: 'MoveHead', kind: 'redo' });
      expect(await ask()).toContain('Your table at Cervejaria Ramiro is booked for Friday at 8 pm.');
    } finally {
      await rewind.close();
    }
  });

  it('persists the index beside rewind.db and resumes from its checkpoint after reopening', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-lib-memory-'));
    try {
      const first = Rewind.open({ dataDir });
      const session = await first.startSession('notes');
      await session.say('user', 'The wifi password at the office is blue-heron-42');
      expect((await session.recall('office wifi password')).hits[0]!.text).toBe('The wifi password at the office is blue-heron-42');
      await first.close();
      const again = Rewind.open({ dataDir });
      expect(await again.memory().indexer.status()).toMatchObject({ lag: 0 });
      expect((await again.session('notes').recall('office wifi password', { rewrite: false })).hits).toHaveLength(1);
      await again.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('with the defaults, finds a Chinese item by a Chinese question: each text embedded by its language’s model', async () => {
    const rewind = Rewind.inMemory();
    try {
      const session = await rewind.startSession('trip-zh');
      await session.say('user', '帮我订一家在南京路的酒店。');
      await session.say('agent', '金鼎酒店在南京路一百号，每晚八百元。');
      await session.say('agent', 'The Avenida hotel is on Rua Augusta, 95 euros a night.');
      expect((await session.recall('金鼎酒店每晚多少钱？', { rewrite: false })).hits[0]!.text).toBe('金鼎酒店在南京路一百号，每晚八百元。');
      expect((await session.recall('How much is the Avenida hotel?', { rewrite: false })).hits[0]!.text).toBe(
        'The Avenida hotel is on Rua Augusta, 95 euros a night.',
      );
      const status = await rewind.memory().indexer.status();
      expect(status.models.map(({ id, items }) => ({ id, items }))).toEqual([
        { id: 'e5-small-v2-q', items: 1 },
        { id: 'bge-small-zh-v15-q', items: 2 },
      ]);
    } finally {
      await rewind.close();
    }
  });
});
