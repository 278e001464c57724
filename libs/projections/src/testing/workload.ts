import type { EventStore, NewEvent } from '@rewind/event-store';

/**
 * Realistic agent sessions written straight into an event store (no HTTP, no domain
 * commands): 20-turn sessions of user message, tool call start and result, agent message
 * and memory write, with undos and some rollbacks whose reversible effects get compensated.
 * Events are shaped exactly as the domain writes them. Used by the rebuild benchmark and by
 * the large crash and concurrency tests. Deterministic for a given seed.
 */

export interface WorkloadOptions {
  /** Stop after about this many events (a session in progress is finished with its current append). */
  events: number;
  turnsPerSession?: number;
  /** Sessions written in parallel (interleaved in the log). */
  activeSessions?: number;
  /** Appends in flight at once (PostgreSQL benefits; SQLite serializes anyway). */
  concurrency?: number;
  tenants?: string[];
  seed?: number;
  /** Prefix of session ids (to write several workloads into one store). */
  sessionPrefix?: string;
  onProgress?: (written: number) => void;
}

export interface WorkloadResult {
  events: number;
  sessions: number;
  appends: number;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CITIES = ['Lisbon', 'Porto', 'Madrid', 'Seville', 'Rome', 'Florence', 'Vienna', 'Prague', 'Kyoto', 'Osaka'];
const TOOLS = ['search_hotels', 'search_flights', 'weather', 'currency', 'book_hotel'];

interface SessionPlan {
  tenantId: string;
  sessionId: string;
  streamId: string;
  version: number;
  head: number;
  turn: number;
  turns: number;
  /** The timeline parent of each version (-1: not a node). */
  parents: number[];
  /** Reversible calls on the head path (startedVersion → toolCallId, tool). */
  effects: Map<number, { toolCallId: string; tool: string }>;
  /** 0: no head move; else the turn after which it happens. */
  undoAt: number;
  rollbackAt: number;
  counter: number;
}

/** Appends sessions until `options.events` events are written. */
export async function appendWorkload(store: EventStore, options: WorkloadOptions): Promise<WorkloadResult> {
  const random = mulberry32(options.seed ?? 42);
  const turns = options.turnsPerSession ?? 20;
  const tenants = options.tenants ?? ['default', 'acme', 'globex'];
  const prefix = options.sessionPrefix ?? 'bench';
  const clock = Date.parse('2026-01-01T00:00:00.000Z');
  let tick = 0;
  let written = 0;
  let appends = 0;
  let started = 0;
  let reported = 0;

  const newSession = (): SessionPlan => {
    const n = started++;
    const tenantId = tenants[n % tenants.length]!;
    const sessionId = `${prefix}-${n}`;
    const roll = random();
    return {
      tenantId,
      sessionId,
      streamId: `session:${tenantId}:${sessionId}`,
      version: 0,
      head: 0,
      turn: 0,
      turns,
      parents: [],
      effects: new Map(),
      undoAt: roll < 0.3 ? 4 + Math.floor(random() * (turns - 8)) : 0,
      rollbackAt: roll > 0.85 ? 8 + Math.floor(random() * (turns - 10)) : 0,
      counter: 0,
    };
  };

  /** The next append of a session: its start, one turn, or a head move. Null when it is done. */
  const nextChunk = (s: SessionPlan): NewEvent[] | null => {
    const events: NewEvent[] = [];
    const commandId = `${s.sessionId}-c${++s.counter}`;
    let lastStep: number | null = null;
    const push = (type: string, data: unknown, step: boolean) => {
      const version = s.version + events.length + 1;
      // Within one append, steps chain onto each other; the first hangs off the head.
      const parent = step ? (lastStep ?? s.head) : null;
      if (step) lastStep = version;
      events.push({
        eventId: `${s.streamId}#${version}`,
        type,
        data,
        parentVersion: parent === 0 ? null : parent,
        metadata: {
          tenantId: s.tenantId,
          sessionId: s.sessionId,
          commandId,
          causationId: null,
          correlationId: commandId,
          actor: 'key:bench',
          occurredAt: new Date(clock + ++tick * 7).toISOString(),
          schemaVersion: 1,
        },
      });
    };
    if (s.version === 0) {
      push('SessionStarted', { sessionId: s.sessionId, title: `Trip to ${CITIES[Math.floor(random() * CITIES.length)]}`, metadata: { channel: 'web' } }, true);
    } else if (s.undoAt > 0 && s.turn === s.undoAt) {
      s.undoAt = 0;
      // Undo the last step (the memory write): no effect on the way.
      const to = s.parents[s.head - 1]!;
      const rollbackId = `${s.sessionId}~u${s.counter}`;
      push('RollbackRequested', { rollbackId, kind: 'undo', fromVersion: s.head, toVersion: to, plan: [], acknowledgeIrreversible: false }, false);
      push('RollbackCompleted', { rollbackId, toVersion: to }, false);
    } else if (s.rollbackAt > 0 && s.turn === s.rollbackAt) {
      s.rollbackAt = 0;
      // Back three turns: reversible bookings on the way are compensated, newest first.
      let to = s.head;
      for (let i = 0; i < 15 && s.parents[to - 1]! > 0; i++) to = s.parents[to - 1]!;
      const onPath = new Set<number>();
      for (let v = s.head; v > to; v = s.parents[v - 1]!) onPath.add(v);
      const abandoned = [...s.effects.entries()].filter(([v]) => onPath.has(v)).sort((a, b) => b[0] - a[0]);
      const rollbackId = `${s.sessionId}~r${s.counter}`;
      const plan = abandoned.map(([startedVersion, call]) => ({
        toolCallId: call.toolCallId,
        tool: call.tool,
        startedVersion,
        effect: { kind: 'reversible', compensation: { channel: 'http', target: 'http://127.0.0.1:9/cancel/{{output.bookingId}}' } },
        callStatus: 'succeeded',
        action: 'compensate',
        reason: null,
      }));
      push('RollbackRequested', { rollbackId, kind: 'rollback', fromVersion: s.head, toVersion: to, plan, acknowledgeIrreversible: false }, false);
      for (const item of plan) {
        push(
          'CompensationApplied',
          { rollbackId, toolCallId: item.toolCallId, startedVersion: item.startedVersion, attempts: 1, response: { cancelled: true } },
          false,
        );
        s.effects.delete(item.startedVersion);
      }
      push('RollbackCompleted', { rollbackId, toVersion: to }, false);
    } else if (s.turn < s.turns) {
      const t = ++s.turn;
      const turnId = `t${t}-${s.counter}`;
      const city = CITIES[Math.floor(random() * CITIES.length)]!;
      const tool = TOOLS[Math.floor(random() * TOOLS.length)]!;
      const reversible = tool === 'book_hotel';
      const toolCallId = `call-${t}-${s.counter}`;
      push(
        'UserMessageReceived',
        { turnId, messageId: `${turnId}-u`, content: `Turn ${t}: find me something in ${city} near the old town for ${2 + (t % 5)} nights.` },
        true,
      );
      push(
        'ToolCallStarted',
        {
          toolCallId,
          tool,
          input: { city, nights: 2 + (t % 5), budget: 80 + t },
          effect: reversible
            ? { kind: 'reversible', compensation: { channel: 'http', target: 'http://127.0.0.1:9/cancel/{{output.bookingId}}' } }
            : { kind: 'none' },
          confirmed: false,
          turnId,
        },
        true,
      );
      if (reversible) s.effects.set(s.version + 2, { toolCallId, tool });
      push(
        'ToolCallSucceeded',
        { toolCallId, output: reversible ? { bookingId: `B${s.counter}`, price: 90 + t } : { results: [`${city} Inn`, `${city} House`], cheapest: 89 + t } },
        true,
      );
      push(
        'AgentMessageProduced',
        { turnId, messageId: `${turnId}-a`, content: `${city} Inn is close to the old town and costs ${89 + t} EUR a night.` },
        true,
      );
      push('MemoryWritten', { key: `pref-${t % 7}`, value: { city, turn: t, likes: 'old town' } }, true);
    } else {
      return null;
    }
    return events;
  };

  const apply = (s: SessionPlan, events: NewEvent[]) => {
    for (const e of events) {
      s.version += 1;
      if (e.type === 'RollbackCompleted') {
        s.parents.push(-1);
        s.head = (e.data as { toVersion: number }).toVersion;
      } else if (e.parentVersion !== null || e.type === 'SessionStarted') {
        s.parents.push(e.parentVersion ?? 0);
        s.head = s.version;
      } else {
        s.parents.push(-1);
      }
    }
  };

  const active = Math.max(1, options.activeSessions ?? 64);
  const queue: SessionPlan[] = [];
  for (let i = 0; i < active; i++) queue.push(newSession());
  const worker = async () => {
    while (written < options.events) {
      const s = queue.shift();
      if (!s) return;
      const events = nextChunk(s);
      if (!events) {
        queue.push(newSession());
        continue;
      }
      written += events.length;
      await store.append(s.streamId, events, { expectedVersion: s.version === 0 ? 'no_stream' : s.version });
      appends++;
      apply(s, events);
      queue.push(s);
      if (options.onProgress && written - reported >= 10_000) {
        reported = written;
        options.onProgress(written);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
  return { events: written, sessions: started, appends };
}
