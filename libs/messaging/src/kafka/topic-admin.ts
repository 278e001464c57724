import type { Admin } from 'kafkajs';
import type { KafkaTopicSpec } from './kafka-config';
import type { Logger } from '@rewind/config';
import { errorMessage } from './logger';

export interface EnsureTopicsResult {
  created: string[];
  existing: string[];
}

/**
 * Creates the topics that do not exist yet (idempotent: several workers may call it at
 * once). Existing topics are never changed; one with fewer partitions than configured
 * is reported, because adding partitions moves keys and breaks per-session order.
 */
export async function ensureTopics(admin: Admin, specs: KafkaTopicSpec[], logger?: Logger): Promise<EnsureTopicsResult> {
  if (specs.length === 0) return { created: [], existing: [] };
  const present = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !present.has(s.topic));
  const created: string[] = [];
  if (missing.length > 0) {
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.numPartitions,
          replicationFactor: s.replicationFactor,
          ...(s.configEntries ? { configEntries: s.configEntries } : {}),
        })),
      });
    } catch (error) {
      // Another worker may have created some of them in between: that is fine.
      const errors = (error as { errors?: { type?: string }[] }).errors;
      if (!errors || !errors.every((e) => e.type === 'TOPIC_ALREADY_EXISTS')) {
        throw new Error(
          `Could not create the Kafka topics ${missing.map((s) => s.topic).join(', ')}: ${errorMessage(error)}. ` +
            'Create them yourself (see docs/asyncapi.yaml for partitions and settings) and set KAFKA_CREATE_TOPICS=false, or give this client the CreateTopics permission.',
          { cause: error },
        );
      }
    }
    created.push(...missing.map((s) => s.topic));
    for (const s of missing) logger?.log(`Created Kafka topic "${s.topic}" with ${s.numPartitions} partition(s).`);
  }
  const existing = specs.filter((s) => present.has(s.topic));
  if (existing.length > 0) {
    const metadata = await admin.fetchTopicMetadata({ topics: existing.map((s) => s.topic) });
    for (const topic of metadata.topics) {
      const wanted = existing.find((s) => s.topic === topic.name)!.numPartitions;
      if (topic.partitions.length < wanted) {
        logger?.warn(
          `Kafka topic "${topic.name}" has ${topic.partitions.length} partition(s), fewer than the ${wanted} configured. ` +
            "It is left as it is: adding partitions changes which partition a key goes to and can reorder one session's messages. Add them in a quiet moment if you need more parallelism.",
        );
      }
    }
  }
  return { created, existing: existing.map((s) => s.topic) };
}
