import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnableConfig } from '@langchain/core/runnables';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rewind } from '@rewind/embedded';
import { RewindCheckpointSaver } from './rewind-saver';
import { checkpointOf, checkpointSaverContract, meta } from './testing/checkpoint-saver.contract';

/** LangGraph's validation cases, on both library stores (the HTTP transport runs them in http/rewind-http-saver.e2e.spec.ts). */
const stores = {
  memory: () => ({ rewind: Rewind.inMemory(), cleanup: () => undefined }),
  sqlite: () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-langgraph-'));
    return { rewind: Rewind.open({ dataDir: dir }), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  },
};

describe.each(Object.entries(stores))('RewindCheckpointSaver on the %s store', (_name, open) => {
  checkpointSaverContract(async () => {
    const { rewind, cleanup } = open();
    return {
      saver: new RewindCheckpointSaver(rewind),
      fresh: () => new RewindCheckpointSaver(rewind),
      close: async () => {
        await rewind.close();
        cleanup();
      },
    };
  });
});

describe('list channels are stored as appended parts', () => {
  it('any sequence of list edits (append, truncate, replace) reads back exactly, from this saver and a fresh one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('append' as const), items: fc.array(fc.jsonValue(), { maxLength: 3 }) }),
            fc.record({ op: fc.constant('truncate' as const), keep: fc.nat(4) }),
            fc.record({ op: fc.constant('replace' as const), at: fc.nat(4), item: fc.string() }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        async (edits) => {
          const rewind = Rewind.inMemory();
          const saver = new RewindCheckpointSaver(rewind);
          let list: unknown[] = [];
          let config: RunnableConfig = { configurable: { thread_id: 't' } };
          const expected: [RunnableConfig, unknown[]][] = [];
          for (const [i, edit] of edits.entries()) {
            if (edit.op === 'append') list = [...list, ...edit.items];
            if (edit.op === 'truncate') list = list.slice(0, edit.keep);
            if (edit.op === 'replace' && edit.at < list.length) list = list.map((x, j) => (j === edit.at ? edit.item : x));
            config = await saver.put(config, checkpointOf({ messages: list }, { messages: i + 1 }), meta(i), { messages: i + 1 });
            expected.push([config, JSON.parse(JSON.stringify(list)) as unknown[]]);
          }
          const fresh = new RewindCheckpointSaver(rewind);
          for (const [at, value] of expected) {
            expect((await saver.getTuple(at))?.checkpoint.channel_values.messages).toEqual(value);
            expect((await fresh.getTuple(at))?.checkpoint.channel_values.messages).toEqual(value);
          }
          await rewind.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
