import { isIP } from 'node:net';
import type { EnvReader } from './env-reader';

/** Where compensations may go (`@rewind/sagas`' EgressPolicy): the same for the API and the worker. */
export interface EgressSettings {
  /** REWIND_EGRESS_ALLOW: CIDRs, addresses or host names compensations may reach although loopback/private/link-local. */
  allow: string[];
  /** REWIND_EGRESS_FOLLOW_REDIRECTS (default false). */
  followRedirects: boolean;
  /** REWIND_EGRESS_MAX_RESPONSE_BYTES (default 10 000): the most of an answer read and recorded. */
  maxResponseBytes: number;
  /** REWIND_EGRESS_RECORD_BODIES (default true): record the compensator's answer body, or only its status. */
  recordBodies: boolean;
  /** REWIND_EGRESS_KAFKA_TOPICS: topics (`name` or `prefix*`) kafka compensations may use; empty: any but `rewind.*`. */
  kafkaTopics: string[];
}

const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

function validAllowEntry(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined) return false;
  const type = isIP(address!);
  if (type === 0) return prefix === undefined && HOST.test(entry);
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (type === 4 ? 32 : 128));
}

/** REWIND_EGRESS_*; a bad entry throws the caller's error with the variable named. */
export function loadEgressSettings(read: EnvReader, refuse: (message: string) => Error): EgressSettings {
  const allow = list(read.raw('REWIND_EGRESS_ALLOW'));
  const bad = allow.find((entry) => !validAllowEntry(entry));
  if (bad !== undefined) {
    throw refuse(
      `REWIND_EGRESS_ALLOW entry "${bad}" is not valid: use CIDRs (10.0.0.0/8), addresses (127.0.0.1) or host names (billing.internal, *.corp.example), comma-separated.`,
    );
  }
  const kafkaTopics = list(read.raw('REWIND_EGRESS_KAFKA_TOPICS'));
  const own = kafkaTopics.find((topic) => topic.startsWith('rewind.') || topic === '*' || 'rewind.'.startsWith(topic.replace(/\*$/, '')));
  if (own !== undefined) throw refuse(`REWIND_EGRESS_KAFKA_TOPICS entry "${own}" would include Rewind's own topics (rewind.*), which compensations never use.`);
  return {
    allow,
    followRedirects: read.boolean('REWIND_EGRESS_FOLLOW_REDIRECTS', false),
    maxResponseBytes: read.integer('REWIND_EGRESS_MAX_RESPONSE_BYTES', 10_000, 0, 10_485_760),
    recordBodies: read.boolean('REWIND_EGRESS_RECORD_BODIES', true),
    kafkaTopics,
  };
}

/** REWIND_MAX_JSON_KEYS_PER_OBJECT (10 000) and REWIND_MAX_JSON_NODES (200 000): for HTTP bodies and Kafka commands alike. */
export function loadJsonCostLimits(read: EnvReader): { maxKeysPerObject: number; maxNodes: number } {
  return {
    maxKeysPerObject: read.integer('REWIND_MAX_JSON_KEYS_PER_OBJECT', 10_000, 1, 10_000_000),
    maxNodes: read.integer('REWIND_MAX_JSON_NODES', 200_000, 1, 100_000_000),
  };
}
