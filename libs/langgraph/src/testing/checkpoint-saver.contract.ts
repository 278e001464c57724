import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, TASKS, uuid6, type Checkpoint, type CheckpointMetadata, type CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThreadCheckpointSaver } from '../checkpoint-saver';

export interface SaverUnderTest {
  saver: ThreadCheckpointSaver;
  /** Another saver over the same store, with nothing cached. */
  fresh(): ThreadCheckpointSaver;
  /** Listing every thread reads a projection that may lag the writes a little (over HTTP: GET /v1/sessions). */
  threadListLags?: boolean;
  close(): Promise<void>;
}

export function checkpointOf(values: Record<string, unknown>, versions: Record<string, number>, id = uuid6(-3)): Checkpoint {
  return { ...emptyCheckpoint(), id, channel_values: values, channel_versions: versions, versions_seen: { node: versions } };
}

export const meta = (step: number, source: CheckpointMetadata['source'] = 'loop'): CheckpointMetadata => ({ source, step, parents: {} });

export async function collect(iterable: AsyncIterable<CheckpointTuple>): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/**
 * The cases of LangGraph's checkpointer validation suite (@langchain/langgraph-checkpoint-validation
 * needs vitest 4; this repository runs vitest 3), written out once for every transport of the
 * saver. `open` gives a saver over an empty store (each case its own).
 */
export function checkpointSaverContract(open: () => Promise<SaverUnderTest>): void {
  let env: SaverUnderTest;
  let saver: ThreadCheckpointSaver;
  beforeEach(async () => {
    env = await open();
    saver = env.saver;
  });
  afterEach(() => env.close());

  describe.each(['', 'child'])('namespace "%s"', (ns) => {
    it('put returns a config naming only the thread, namespace and checkpoint, and round-trips checkpoint and metadata unaltered', async () => {
      const checkpoint = checkpointOf({ foo: 'bar', list: [1, { a: 2 }] }, { foo: 1, list: 1 });
      const config = await saver.put({ configurable: { thread_id: 't1', checkpoint_ns: ns, canary: 'tweet' } }, checkpoint, meta(-1, 'input'), {
        foo: 1,
        list: 1,
      });
      expect(config).toEqual({ configurable: { thread_id: 't1', checkpoint_ns: ns, checkpoint_id: checkpoint.id } });
      const tuple = await saver.getTuple(config);
      expect(tuple?.checkpoint).toEqual(checkpoint);
      expect(tuple?.metadata).toEqual(meta(-1, 'input'));
      expect(tuple?.parentConfig).toBeUndefined();
      expect(tuple?.pendingWrites).toEqual([]);
    });

    it('put refuses a config without a thread_id, and persists nothing', async () => {
      await expect(saver.put({}, checkpointOf({}, {}), meta(0), {})).rejects.toThrow('configurable.thread_id');
      await expect(saver.put({ configurable: { checkpoint_ns: ns } }, checkpointOf({}, {}), meta(0), {})).rejects.toThrow('thread_id');
      expect(await collect(saver.list({}))).toEqual([]);
    });

    it('getTuple finds the latest checkpoint, one by id, its parent config and its pending writes in task order', async () => {
      const first = checkpointOf({ foo: 'a' }, { foo: 1 });
      const c1 = await saver.put({ configurable: { thread_id: 't', checkpoint_ns: ns } }, first, meta(0), { foo: 1 });
      const second = checkpointOf({ foo: 'b' }, { foo: 2 });
      const c2 = await saver.put(c1, second, meta(1), { foo: 2 });
      await saver.putWrites(c2, [['foo', 'w2']], 'task-b', 'path-b');
      await saver.putWrites(
        c2,
        [
          ['foo', 'w1'],
          ['bar', { x: 1 }],
        ],
        'task-a',
        'path-a',
      );
      await saver.putWrites(c2, [['foo', 'duplicate ignored']], 'task-a', 'path-a');

      const latest = await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: ns } });
      expect(latest?.checkpoint).toEqual(second);
      expect(latest?.parentConfig).toEqual(c1);
      expect(latest?.pendingWrites).toEqual([
        ['task-a', 'foo', 'w1'],
        ['task-a', 'bar', { x: 1 }],
        ['task-b', 'foo', 'w2'],
      ]);
      expect((await saver.getTuple(c1))?.checkpoint).toEqual(first);
      expect(await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: ns, checkpoint_id: uuid6(-3) } })).toBeUndefined();
      expect(await saver.getTuple({ configurable: { thread_id: 'never-seen', checkpoint_ns: ns } })).toBeUndefined();
    });
  });

  it('stores only the channels newVersions names; unchanged channels come from the parent', async () => {
    const c0 = await saver.put({ configurable: { thread_id: 't' } }, checkpointOf({ foo: 'bar', baz: 'qux' }, { foo: 1, baz: 1 }), meta(-1), {});
    expect((await saver.getTuple(c0))?.checkpoint.channel_values).toEqual({});
    const c1 = await saver.put(c0, checkpointOf({ foo: 'bar', baz: 'qux' }, { foo: 1, baz: 1 }), meta(0), { foo: 1 });
    expect((await saver.getTuple(c1))?.checkpoint.channel_values).toEqual({ foo: 'bar' });
    const c2 = await saver.put(c1, checkpointOf({ foo: 'bar', baz: 'qux' }, { foo: 1, baz: 2 }), meta(1), { baz: 2 });
    expect((await saver.getTuple(c2))?.checkpoint.channel_values).toEqual({ foo: 'bar', baz: 'qux' });
  });

  it('list: newest first, across namespaces or one, with limit, before and a metadata filter', async () => {
    let config: RunnableConfig = { configurable: { thread_id: 't', checkpoint_ns: '' } };
    const ids: string[] = [];
    for (let step = 0; step < 4; step++) {
      const checkpoint = checkpointOf({ n: step }, { n: step + 1 });
      ids.push(checkpoint.id);
      config = await saver.put(config, checkpoint, meta(step, step === 0 ? 'input' : 'loop'), { n: step + 1 });
    }
    await saver.put({ configurable: { thread_id: 't', checkpoint_ns: 'sub' } }, checkpointOf({}, {}), meta(0), {});
    await saver.put({ configurable: { thread_id: 'other' } }, checkpointOf({}, {}), meta(0), {});

    const idsOf = (tuples: CheckpointTuple[]) => tuples.map((t) => t.checkpoint.id);
    expect(idsOf(await collect(saver.list({ configurable: { thread_id: 't', checkpoint_ns: '' } })))).toEqual([...ids].reverse());
    expect(await collect(saver.list({ configurable: { thread_id: 't' } }))).toHaveLength(5);
    const everyThread = async () => (await collect(saver.list({}))).length;
    if (env.threadListLags) for (const deadline = Date.now() + 20_000; (await everyThread()) < 6 && Date.now() < deadline; ) await sleep(100);
    expect(await everyThread()).toBe(6);
    expect(idsOf(await collect(saver.list({ configurable: { thread_id: 't', checkpoint_ns: '' } }, { limit: 2 })))).toEqual([ids[3], ids[2]]);
    const before = { configurable: { thread_id: 't', checkpoint_ns: '', checkpoint_id: ids[2] } };
    expect(idsOf(await collect(saver.list({ configurable: { thread_id: 't', checkpoint_ns: '' } }, { before })))).toEqual([ids[1], ids[0]]);
    const inputs = await collect(saver.list({ configurable: { thread_id: 't', checkpoint_ns: '' } }, { filter: { source: 'input' } }));
    expect(idsOf(inputs)).toEqual([ids[0]]);
    expect(inputs[0]!.metadata).toEqual(meta(0, 'input'));
  });

  it('deleteThread removes the thread from LangGraph (and only that thread); the thread can start again', async () => {
    const kept = await saver.put({ configurable: { thread_id: 'keep' } }, checkpointOf({ a: 1 }, { a: 1 }), meta(0), { a: 1 });
    const gone = await saver.put({ configurable: { thread_id: 'gone' } }, checkpointOf({ a: 1 }, { a: 1 }), meta(0), { a: 1 });
    await saver.putWrites(gone, [['a', 2]], 'task');
    await saver.deleteThread('gone');
    await saver.deleteThread('never-existed');
    expect(await saver.getTuple({ configurable: { thread_id: 'gone' } })).toBeUndefined();
    expect(await saver.getTuple(gone)).toBeUndefined();
    expect(await collect(saver.list({ configurable: { thread_id: 'gone' } }))).toEqual([]);
    expect(await saver.getTuple(kept)).toBeDefined();
    // A fresh saver reads the same from the store.
    expect(await env.fresh().getTuple({ configurable: { thread_id: 'gone' } })).toBeUndefined();
    const again = await saver.put({ configurable: { thread_id: 'gone' } }, checkpointOf({ a: 9 }, { a: 1 }), meta(0), { a: 1 });
    expect((await saver.getTuple(again))?.checkpoint.channel_values).toEqual({ a: 9 });
  });

  it('two savers writing one thread in turn (two processes) each read every checkpoint, with the values the other wrote', async () => {
    const other = env.fresh();
    let config: RunnableConfig = { configurable: { thread_id: 'shared' } };
    const written: [RunnableConfig, unknown[]][] = [];
    let list: unknown[] = [];
    for (let step = 0; step < 6; step++) {
      list = [...list, `m${step}`];
      const writer = step % 2 === 0 ? saver : other;
      config = await writer.put(config, checkpointOf({ messages: list, n: step }, { messages: step + 1, n: step + 1 }), meta(step), {
        messages: step + 1,
        n: step + 1,
      });
      await (step % 2 === 0 ? other : saver).putWrites(config, [['n', step]], `task-${step}`);
      written.push([config, list]);
    }
    for (const reader of [saver, other]) {
      for (const [at, messages] of written) {
        const tuple = await reader.getTuple(at);
        expect(tuple?.checkpoint.channel_values.messages).toEqual(messages);
        expect(tuple?.pendingWrites).toHaveLength(1);
      }
      expect(await collect(reader.list({ configurable: { thread_id: 'shared' } }))).toHaveLength(6);
    }
  });

  it('takes any string as a thread id, as MemorySaver does: each reads back under its own id, also when listing every thread', async () => {
    const threadIds = ['user:42', 'alice@example.com', 'org/acme/t1', 'two words', 'été ☀️ 東京', '\u0000\ud800', 'lg.trip', 'x'.repeat(5000), 'trip-42'];
    for (const [i, threadId] of threadIds.entries()) {
      const config = await saver.put({ configurable: { thread_id: threadId } }, checkpointOf({ i }, { i: 1 }), meta(0), { i: 1 });
      expect(config.configurable?.thread_id).toBe(threadId);
      await saver.putWrites(config, [['i', i]], 'task');
    }
    const everyThread = async () => (await collect(env.fresh().list({}))).map((t) => [t.config.configurable?.thread_id, t.checkpoint.channel_values.i]);
    if (env.threadListLags)
      for (const deadline = Date.now() + 20_000; (await everyThread()).length < threadIds.length && Date.now() < deadline; ) await sleep(100);
    expect(new Map((await everyThread()) as [string, number][])).toEqual(new Map(threadIds.map((threadId, i) => [threadId, i])));
    for (const [i, threadId] of threadIds.entries()) {
      const tuple = await env.fresh().getTuple({ configurable: { thread_id: threadId } });
      expect(tuple?.checkpoint.channel_values).toEqual({ i });
      expect(tuple?.pendingWrites).toEqual([['task', 'i', i]]);
      expect(tuple?.config.configurable?.thread_id).toBe(threadId);
    }
    await saver.deleteThread('two words');
    expect(await saver.getTuple({ configurable: { thread_id: 'two words' } })).toBeUndefined();
    expect(await saver.getTuple({ configurable: { thread_id: 'user:42' } })).toBeDefined();
  });

  it('an unknown thread has no checkpoint; an empty or non-string thread id is refused, never read as an empty thread', async () => {
    expect(await saver.getTuple({ configurable: { thread_id: 'never:seen' } })).toBeUndefined();
    expect(await collect(saver.list({ configurable: { thread_id: 'never:seen' } }))).toEqual([]);
    await expect(saver.getTuple({ configurable: { thread_id: '' } })).rejects.toThrow('thread_id is the empty string');
    await expect(collect(saver.list({ configurable: { thread_id: '' } }))).rejects.toThrow('thread_id is the empty string');
    await expect(saver.put({ configurable: { thread_id: '' } }, checkpointOf({}, {}), meta(0), {})).rejects.toThrow('thread_id is the empty string');
    await expect(saver.getTuple({ configurable: { thread_id: 42 } })).rejects.toThrow('must be a string');
    expect(await collect(saver.list({}))).toEqual([]);
  });

  it('a checkpoint of the format before v4 receives the sends its parent left as pending writes (as MemorySaver does)', async () => {
    const v1 = (id: string): Checkpoint => ({ v: 1, id, ts: '2024-04-19T17:19:07.952Z', channel_values: {}, channel_versions: {}, versions_seen: {} });
    const parent = await saver.put({ configurable: { thread_id: 't', checkpoint_ns: 'child' } }, v1(uuid6(-3)), meta(0), {});
    await saver.putWrites(parent, [[TASKS, 'send-3']], 'task-2');
    await saver.putWrites(
      parent,
      [
        [TASKS, 'send-1'],
        ['other', 'not a send'],
        [TASKS, 'send-2'],
      ],
      'task-1',
    );
    expect((await saver.getTuple(parent))?.checkpoint.channel_values).toEqual({});
    const child = await saver.put(parent, v1(uuid6(-3)), meta(1), {});
    for (const reader of [saver, env.fresh()]) {
      const [fromList] = await collect(reader.list({ configurable: { thread_id: 't', checkpoint_ns: 'child' } }, { limit: 1 }));
      for (const tuple of [await reader.getTuple(child), fromList]) {
        expect(tuple?.checkpoint.channel_values).toEqual({ [TASKS]: ['send-1', 'send-2', 'send-3'] });
        expect(tuple?.checkpoint.channel_versions[TASKS]).toBeDefined();
      }
    }
    // The current format keeps sends in the checkpoint itself: nothing is added to it.
    const current = await saver.put(child, { ...v1(uuid6(-3)), v: 4 }, meta(2), {});
    expect((await saver.getTuple(current))?.checkpoint.channel_values).toEqual({});
  });

  it('keeps special writes (errors, interrupts) apart from regular ones', async () => {
    const config = await saver.put({ configurable: { thread_id: 't' } }, checkpointOf({}, {}), meta(0), {});
    await saver.putWrites(config, [['__error__', { message: 'boom' }]], 'task');
    await saver.putWrites(config, [[TASKS, { node: 'x' }]], 'task');
    const writes = (await saver.getTuple(config))?.pendingWrites ?? [];
    expect(writes).toContainEqual(['task', '__error__', { message: 'boom' }]);
    expect(writes).toContainEqual(['task', TASKS, { node: 'x' }]);
  });
}
