import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { MemorySaver, type StateSnapshot } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Rewind } from '@rewind/embedded';
import { langGraphNodeOf } from '@rewind/engine';
import { RewindCheckpointSaver } from './rewind-saver';
import { ROLLED_BACK_METADATA } from './checkpoint-saver';
import { bookingGraph } from './testing/booking-agent';

describe('a LangGraph StateGraph with a tool node, checkpointed on Rewind', () => {
  let rewind: Rewind;
  let saver: RewindCheckpointSaver;
  let world: string[];
  let graph: ReturnType<typeof build>;

  // The booking is a Rewind tool call in the thread's session: rolling the thread back undoes it.
  const build = () =>
    bookingGraph(async (hotel, config) => {
      const session = await saver.session(config);
      return (await session.call<{ hotel: string }, { bookingId: string }>('book_hotel', { hotel })).bookingId;
    }, saver);

  beforeEach(() => {
    rewind = Rewind.inMemory();
    world = [];
    rewind.tool<{ hotel: string }, { bookingId: string }>('book_hotel', {
      run: ({ hotel }) => (world.push(`booked ${hotel}`), { bookingId: `bk-${hotel}` }),
      undo: ({ output }) => void world.push(`cancelled ${output!.bookingId}`),
    });
    saver = new RewindCheckpointSaver(rewind);
    graph = build();
  });
  afterEach(() => rewind.close());

  const thread = { configurable: { thread_id: 'trip' } };
  // As docs/guide/langgraph.md asks of a graph rolled back to checkpoints: each checkpoint saved before the next step runs
  // (LangGraph's default, "async", lets a tool node record its call before the checkpoint it follows lands).
  const run = { ...thread, durability: 'sync' as const };
  const texts = (snapshot: StateSnapshot) => (snapshot.values as { messages: BaseMessage[] }).messages.map((m) => String(m.content));

  it('runs turns, keeps their history, and continues a thread from a fresh saver', async () => {
    await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
    await graph.invoke({ messages: [new HumanMessage('book Hilton')] }, run);
    expect(world).toEqual(['booked Ritz', 'booked Hilton']);
    expect(texts(await graph.getState(thread))).toEqual(['book Ritz', '', 'bk-Ritz', 'Done: bk-Ritz', 'book Hilton', '', 'bk-Hilton', 'Done: bk-Hilton']);

    const history: StateSnapshot[] = [];
    for await (const snapshot of graph.getStateHistory(thread)) history.push(snapshot);
    expect(history.length).toBeGreaterThanOrEqual(10); // input + agent + tools + agent per turn, and more
    expect(texts(history[history.length - 1]!)).toEqual([]);

    saver = new RewindCheckpointSaver(rewind);
    graph = build();
    await graph.invoke({ messages: [new HumanMessage('thanks')] }, run);
    expect(texts(await graph.getState(thread)).slice(-2)).toEqual(['thanks', 'How can I help?']);
  });

  it("records which node wrote each step: the timeline names the graph's nodes (the UI shows them as the step's writer)", async () => {
    await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
    const events = await (await saver.session(thread)).events();
    const nodes = events.map((e) => langGraphNodeOf(e.data)).filter((node): node is string => node !== null);
    expect(new Set(nodes)).toEqual(new Set(['__start__', 'agent', 'tools'])); // __start__: LangGraph's input node
    expect(nodes.filter((n) => n === 'agent')).toHaveLength(2); // the agent before and after the tool node
  });

  it('rolling the thread back through Rewind undoes the bookings made after the target and makes it the latest state', async () => {
    await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
    const afterFirstTurn = (await graph.getState(thread)).config;
    await graph.invoke({ messages: [new HumanMessage('book Hilton')] }, run);

    await saver.rollbackTo(afterFirstTurn);
    expect(world).toEqual(['booked Ritz', 'booked Hilton', 'cancelled bk-Hilton']);
    expect(texts(await graph.getState(thread))).toEqual(['book Ritz', '', 'bk-Ritz', 'Done: bk-Ritz']);
    const session = await saver.session(thread);
    expect((await session.state()).toolCalls.map((c) => c.tool)).toEqual(['book_hotel']);

    await graph.invoke({ messages: [new HumanMessage('book Savoy')] }, run);
    expect(texts(await graph.getState(thread)).slice(-1)).toEqual(['Done: bk-Savoy']);
    expect(world.slice(-1)).toEqual(['booked Savoy']);
  });

  const history = async (config = thread) => {
    const all: StateSnapshot[] = [];
    for await (const snapshot of graph.getStateHistory(config)) all.push(snapshot);
    return all;
  };
  const rolledBack = (snapshot: StateSnapshot) => (snapshot.metadata as Record<string, unknown> | undefined)?.[ROLLED_BACK_METADATA] !== undefined;

  it("after rollbackTo the history starts with the current state, as on LangGraph's savers; the rolled-back checkpoints follow, marked", async () => {
    await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
    const afterFirstTurn = (await graph.getState(thread)).config;
    await graph.invoke({ messages: [new HumanMessage('book Hilton')] }, run);
    const written = (await history()).length;

    await saver.rollbackTo(afterFirstTurn);
    const afterRollback = await history();
    expect(afterRollback[0]).toEqual(await graph.getState(thread));
    expect(afterRollback[0]!.config.configurable?.checkpoint_id).toBe(afterFirstTurn.configurable?.checkpoint_id);
    expect(afterRollback).toHaveLength(written);
    const firstMarked = afterRollback.findIndex(rolledBack);
    expect(firstMarked).toBeGreaterThan(0);
    expect(afterRollback.slice(firstMarked).every(rolledBack)).toBe(true);
    for (const snapshot of afterRollback.slice(firstMarked)) expect(snapshot.metadata).toMatchObject({ rewind: { rolledBack: true } });
    expect(afterRollback.slice(0, firstMarked).some((s) => texts(s).includes('bk-Hilton'))).toBe(false);
    expect(afterRollback.slice(firstMarked).some((s) => texts(s).includes('Done: bk-Hilton'))).toBe(true);
    // A rolled-back checkpoint read by its id carries the mark too.
    expect(rolledBack(await graph.getState(afterRollback[firstMarked]!.config))).toBe(true);

    await graph.invoke({ messages: [new HumanMessage('book Savoy')] }, run);
    const afterNextTurn = await history();
    expect(afterNextTurn[0]).toEqual(await graph.getState(thread));
    expect(texts(afterNextTurn[0]!).slice(-1)).toEqual(['Done: bk-Savoy']);
    expect(afterNextTurn.filter(rolledBack)).toHaveLength(written - firstMarked);
    expect(afterNextTurn.slice(afterNextTurn.findIndex(rolledBack)).every(rolledBack)).toBe(true);
  });

  it('any string is a thread id: an unknown one reads as on MemorySaver, and one in use runs, continues and rolls back', async () => {
    const onMemory = bookingGraph(async (hotel) => `bk-${hotel}`, new MemorySaver());
    for (const threadId of ['user:42', 'alice@example.com', 'org/acme/t1', 'two words', '東京 ☀️', 'x'.repeat(1000)]) {
      const config = { configurable: { thread_id: threadId } };
      expect(await graph.getState(config)).toEqual(await onMemory.getState(config));
    }
    const refused = { configurable: { thread_id: '' } };
    await expect(onMemory.getState(refused)).rejects.toThrow();
    await expect(graph.getState(refused)).rejects.toThrow('thread_id is the empty string');

    const user = { configurable: { thread_id: 'user:42' }, durability: 'sync' as const };
    await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, user);
    const afterFirstTurn = (await graph.getState(user)).config;
    expect(afterFirstTurn.configurable?.thread_id).toBe('user:42');
    expect((await saver.session(user)).id).toBe('lg.user_003a42');
    await graph.invoke({ messages: [new HumanMessage('book Hilton')] }, user);
    await saver.rollbackTo(afterFirstTurn);
    expect(world).toEqual(['booked Ritz', 'booked Hilton', 'cancelled bk-Hilton']);
    expect(texts(await graph.getState(user))).toEqual(['book Ritz', '', 'bk-Ritz', 'Done: bk-Ritz']);
  });

  it('forks with updateState from a past checkpoint without touching the original branch', async () => {
    await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
    const history: StateSnapshot[] = [];
    for await (const snapshot of graph.getStateHistory(thread)) history.push(snapshot);
    const beforeTool = history.find((s) => s.next.includes('tools'))!;
    const forked = await graph.updateState(beforeTool.config, {
      messages: [new AIMessage({ id: (beforeTool.values as { messages: BaseMessage[] }).messages[1]!.id!, content: 'Changed my mind' })],
    });
    const fork = await graph.getState(forked);
    expect(texts(fork)).toEqual(['book Ritz', 'Changed my mind']);
    expect(texts(await graph.getState(beforeTool.config))).toEqual(['book Ritz', '']);
    expect(texts(await graph.getState(thread))).toEqual(['book Ritz', 'Changed my mind']);
    const all: StateSnapshot[] = [];
    for await (const snapshot of graph.getStateHistory(thread)) all.push(snapshot);
    expect(all.some((s) => texts(s).includes('Done: bk-Ritz'))).toBe(true);
  });
});
