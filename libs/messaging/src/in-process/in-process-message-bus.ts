import type { BusMessage, DeliveredMessage, MessageBus, MessageHandler, SubscribeOptions, Subscription } from '../message-bus';

interface Group {
  handlers: MessageHandler[];
  /** Next offset to deliver. */
  position: number;
  running: boolean;
  next: number;
}

/**
 * The embedded message log: per-topic append-only arrays in memory, one cursor per
 * consumer group, delivery in publish order. Nothing survives a restart (the event store
 * is the durable record; the bus carries work between components of one process).
 */
export class InProcessMessageBus implements MessageBus {
  private readonly topics = new Map<string, { log: DeliveredMessage[]; groups: Map<string, Group> }>();
  private closed = false;

  private topic(name: string) {
    let topic = this.topics.get(name);
    if (!topic) {
      topic = { log: [], groups: new Map() };
      this.topics.set(name, topic);
    }
    return topic;
  }

  async publish(topicName: string, messages: BusMessage[]): Promise<void> {
    if (this.closed) throw new Error('The message bus is closed.');
    const topic = this.topic(topicName);
    for (const message of messages) {
      topic.log.push({ ...message, headers: { ...message.headers }, topic: topicName, partition: 0, offset: String(topic.log.length) });
    }
    for (const group of topic.groups.values()) this.drain(topic.log, group);
  }

  async subscribe(topicName: string, options: SubscribeOptions, handler: MessageHandler): Promise<Subscription> {
    const topic = this.topic(topicName);
    let group = topic.groups.get(options.groupId);
    if (!group) {
      group = { handlers: [], position: options.fromBeginning ? 0 : topic.log.length, running: false, next: 0 };
      topic.groups.set(options.groupId, group);
    }
    group.handlers.push(handler);
    this.drain(topic.log, group);
    const g = group;
    return {
      close: async () => {
        g.handlers = g.handlers.filter((h) => h !== handler);
        while (g.running) await new Promise((r) => setTimeout(r, 5));
      },
    };
  }

  /** Delivers pending messages one at a time; a failing handler gets the same message again. */
  private drain(log: DeliveredMessage[], group: Group): void {
    if (group.running) return;
    group.running = true;
    void (async () => {
      try {
        while (!this.closed && group.handlers.length > 0 && group.position < log.length) {
          const handler = group.handlers[group.next++ % group.handlers.length]!;
          try {
            await handler(log[group.position]!);
            group.position++;
          } catch {
            await new Promise((r) => setTimeout(r, 50)); // redeliver after a pause
          }
        }
      } finally {
        group.running = false;
      }
      if (!this.closed && group.handlers.length > 0 && group.position < log.length) this.drain(log, group);
    })();
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
