import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveredMessage, MessageBus } from '../message-bus';

const until = async (condition: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for messages');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** The contract every message bus adapter passes. `topicFor` makes a fresh topic name (created if needed). */
export function describeMessageBusContract(name: string, create: () => Promise<MessageBus>, topicFor: (bus: MessageBus) => Promise<string>): void {
  describe(`${name} honours the message bus contract`, () => {
    let bus: MessageBus;
    beforeEach(async () => {
      bus = await create();
    });
    afterEach(async () => bus.close());

    it('delivers published messages with key, value and headers, in order per key', async () => {
      const topic = await topicFor(bus);
      const got: DeliveredMessage[] = [];
      const sub = await bus.subscribe(topic, { groupId: `g-${randomUUID()}`, fromBeginning: true }, async (m) => {
        got.push(m);
      });
      await bus.publish(
        topic,
        Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 2}`, value: JSON.stringify({ i }), headers: { type: 'T', n: String(i) } })),
      );
      await until(() => got.length === 20);
      for (const key of ['k0', 'k1']) {
        const ns = got.filter((m) => m.key === key).map((m) => JSON.parse(m.value).i);
        expect(ns).toEqual([...ns].sort((a, b) => a - b));
      }
      expect(got[0]).toMatchObject({ topic, headers: expect.objectContaining({ type: 'T' }) });
      await sub.close();
    });

    it('gives every group every message, and redelivers when a handler fails', async () => {
      const topic = await topicFor(bus);
      const a: string[] = [];
      const b: string[] = [];
      let failures = 0;
      const s1 = await bus.subscribe(topic, { groupId: `a-${randomUUID()}`, fromBeginning: true }, async (m) => {
        a.push(m.value);
      });
      const s2 = await bus.subscribe(topic, { groupId: `b-${randomUUID()}`, fromBeginning: true }, async (m) => {
        if (m.value === 'flaky' && failures++ < 2) throw new Error('transient');
        b.push(m.value);
      });
      await bus.publish(
        topic,
        ['one', 'flaky', 'three'].map((value) => ({ key: 'same', value, headers: {} })),
      );
      await until(() => a.length === 3 && b.length === 3);
      expect(a).toEqual(['one', 'flaky', 'three']);
      expect(b).toEqual(['one', 'flaky', 'three']);
      expect(failures).toBeGreaterThanOrEqual(2);
      await s1.close();
      await s2.close();
    });
  });
}
