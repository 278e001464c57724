import { randomUUID } from 'node:crypto';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StateSnapshot } from '@langchain/langgraph';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRewindClient, type RewindClient } from '@rewind/client';
import { TravelService } from '@rewind/demo';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { bookingGraph } from '../testing/booking-agent';
import { checkpointSaverContract } from '../testing/checkpoint-saver.contract';
import { RewindHttpCheckpointSaver } from './rewind-http-saver';

describe.each(E2E_STORES)('RewindHttpCheckpointSaver against the real server on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let travel: TravelService;
  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp(target.env);
    travel = new TravelService();
    await travel.start();
  });
  afterAll(async () => {
    await travel?.stop();
    await t?.close();
    await cleanup();
  });

  /** A client of a tenant of its own: each case starts with no threads, on one server. */
  async function freshTenant(): Promise<RewindClient> {
    const created = await t.http('POST', '/v1/keys', { name: 'langgraph', tenantId: `lg-${randomUUID().slice(0, 8)}` });
    expect(created.status).toBe(201);
    return createRewindClient({ baseUrl: t.baseUrl, apiKey: (created.body as { key: string }).key, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  }

  describe('LangGraph validation cases', () => {
    checkpointSaverContract(async () => {
      const client = await freshTenant();
      return {
        saver: new RewindHttpCheckpointSaver(client),
        fresh: () => new RewindHttpCheckpointSaver(client),
        threadListLags: true,
        close: async () => undefined,
      };
    });
  });

  describe('a StateGraph with a tool node', () => {
    let client: RewindClient;
    let saver: RewindHttpCheckpointSaver;
    let graph: ReturnType<typeof build>;

    // The booking is a tool call of the thread's session, compensated by the server's saga over HTTP.
    const build = () =>
      bookingGraph(async (hotel, config) => {
        const sessionId = await saver.thread(config);
        const toolCallId = randomUUID();
        await client.startToolCall(sessionId, {
          toolCallId,
          tool: 'book_hotel',
          input: { hotel },
          effect: { kind: 'reversible', compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel` } },
        });
        const booked = (await (await fetch(`${travel.url}/hotels`, { method: 'POST', body: JSON.stringify({ hotel }) })).json()) as { bookingId: string };
        await client.succeedToolCall(sessionId, toolCallId, { bookingId: booked.bookingId });
        return booked.bookingId;
      }, saver);

    beforeEach(async () => {
      client = await freshTenant();
      saver = new RewindHttpCheckpointSaver(client);
      graph = build();
    });

    const thread = { configurable: { thread_id: 'trip' } };
    // Checkpoints saved before the next step runs (LangGraph's default, "async", lets a tool node
    // record its call before the checkpoint it follows lands): a rollback to a checkpoint then
    // compensates exactly the calls made after it.
    const run = { ...thread, durability: 'sync' as const };
    const texts = (snapshot: StateSnapshot) => (snapshot.values as { messages: BaseMessage[] }).messages.map((m) => String(m.content));
    const history = async (config: RunnableConfig) => {
      const all: StateSnapshot[] = [];
      for await (const snapshot of graph.getStateHistory(config)) all.push(snapshot);
      return all;
    };
    const hotelOf = (bookingId: string) => (travel.bookings.get(bookingId)?.details as { hotel: string }).hotel;

    it('runs turns with history, continues from a fresh saver, and a rollback through Rewind cancels the later booking', async () => {
      await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
      const afterFirstTurn = (await graph.getState(thread)).config;
      await graph.invoke({ messages: [new HumanMessage('book Hilton')] }, run);
      const [ritz, hilton] = texts(await graph.getState(thread)).filter((text) => text.startsWith('H-'));
      expect([hotelOf(ritz!), hotelOf(hilton!)]).toEqual(['Ritz', 'Hilton']);
      const all = await history(thread);
      expect(all.length).toBeGreaterThanOrEqual(10);
      expect(texts(all[all.length - 1]!)).toEqual([]);

      // Another saver (another process) reads the same thread from the server.
      saver = new RewindHttpCheckpointSaver(client);
      graph = build();
      expect(texts(await graph.getState(thread))).toEqual(['book Ritz', '', ritz, `Done: ${ritz}`, 'book Hilton', '', hilton, `Done: ${hilton}`]);

      const state = await saver.rollbackTo(afterFirstTurn!);
      expect(travel.bookings.get(hilton!)?.status).toBe('cancelled');
      expect(travel.bookings.get(ritz!)?.status).toBe('booked');
      expect(travel.cancellations.get(hilton!)).toBe(1);
      expect(state.toolCalls.map((c) => c.tool)).toEqual(['book_hotel']);
      expect(texts(await graph.getState(thread))).toEqual(['book Ritz', '', ritz, `Done: ${ritz}`]);
      // The history starts with the current state; what the rollback left behind follows, marked.
      const afterRollback = await history(thread);
      expect(afterRollback[0]).toEqual(await graph.getState(thread));
      expect(afterRollback).toHaveLength(all.length);
      const rolledBack = afterRollback.filter((s) => (s.metadata as { rewind?: { rolledBack?: boolean } }).rewind?.rolledBack === true);
      expect(afterRollback.slice(afterRollback.length - rolledBack.length)).toEqual(rolledBack);
      expect(rolledBack.some((s) => texts(s).includes(`Done: ${hilton}`))).toBe(true);

      await graph.invoke({ messages: [new HumanMessage('book Savoy')] }, run);
      const savoy = texts(await graph.getState(thread))
        .slice(-1)[0]!
        .replace('Done: ', '');
      expect(hotelOf(savoy)).toBe('Savoy');
    });

    it('a rollback whose compensation fails for good throws rollback_needs_attention, naming the rollback to look at', async () => {
      await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
      const [ritz] = texts(await graph.getState(thread)).filter((text) => text.startsWith('H-'));
      // A 4xx is permanent. Every attempt gets it: under load the first may time out and be retried.
      travel.failNext(`/hotels/${ritz}/cancel`, { status: 422, times: 50 });
      const beforeTheBooking = (await history(thread)).at(-1)!.config;
      const failure = await saver.rollbackTo(beforeTheBooking).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'rollback_needs_attention', message: expect.stringMatching(/GET \/v1\/rollbacks\/\S+, then retry or resolve/) });
      expect(travel.bookings.get(ritz!)?.status).toBe('booked');
    });

    it('forks with updateState from a past checkpoint without touching the original branch', async () => {
      await graph.invoke({ messages: [new HumanMessage('book Ritz')] }, run);
      const beforeTool = (await history(thread)).find((s) => s.next.includes('tools'))!;
      const forked = await graph.updateState(beforeTool.config, {
        messages: [new AIMessage({ id: (beforeTool.values as { messages: BaseMessage[] }).messages[1]!.id!, content: 'Changed my mind' })],
      });
      expect(texts(await graph.getState(forked))).toEqual(['book Ritz', 'Changed my mind']);
      expect(texts(await graph.getState(beforeTool.config))).toEqual(['book Ritz', '']);
      expect(texts(await graph.getState(thread))).toEqual(['book Ritz', 'Changed my mind']);
      expect((await history(thread)).some((s) => texts(s).some((text) => text.startsWith('Done: H-')))).toBe(true);
    });
  });
});
