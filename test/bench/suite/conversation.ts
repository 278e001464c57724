/**
 * The conversation every system stores: per turn a user message, a tool call and its result,
 * an agent message and a memory write (5 steps, 5 events) — the same turn as
 * test/bench/restore.bench.ts. Rewind receives it as commands (library) or HTTP requests;
 * Emmett receives the exact events Rewind produced; LangGraph receives it as checkpoints.
 *
 * W7 also stores a second conversation (`ORDER_SUPPORT`: the turn of issue 17's independent
 * harness, a user message, a tool call, its result, a memory write, an agent answer), so that
 * the bytes are not tuned to one conversation's shape.
 */
import { performance } from 'node:perf_hooks';
import type { JsonValue, SessionCommand } from '@rewind/domain';
import { SessionRepository, SessionService, sessionStreamId, type Caller } from '@rewind/engine';
import { type NewEvent, type StoredEvent } from '@rewind/event-store';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';

export const STEPS_PER_TURN = 5;
export const BENCH_TENANT = 'bench';
export const benchCaller: Caller = { tenantId: BENCH_TENANT, actor: 'bench' };

const question = (t: number) => `Question ${t}: where should we stay near the old town?`;
const answer = (t: number) => `Answer ${t}: Alfama Inn is close and costs ${89 + t} EUR.`;
const toolInput = (t: number): JsonValue => ({ city: 'Lisbon', night: t });
const toolOutput = (t: number): JsonValue => ({ hotels: ['Alfama Inn', 'Baixa House'], cheapest: 89 + t });
const memoryKey = (t: number) => `pref-${t % 7}`;
const memoryValue = (t: number): JsonValue => ({ turn: t, likes: 'old town' });

/** Step `s` (0..4) of turn `t` (0-based) as a Rewind command. */
export function stepCommand(t: number, s: number): SessionCommand {
  switch (s) {
    case 0:
      return { type: 'RecordMessage', role: 'user', content: question(t) };
    case 1:
      return { type: 'StartToolCall', toolCallId: `call-${t}`, tool: 'search_hotels', input: toolInput(t) };
    case 2:
      return { type: 'CompleteToolCall', toolCallId: `call-${t}`, output: toolOutput(t) };
    case 3:
      return { type: 'RecordMessage', role: 'agent', content: answer(t) };
    default:
      return { type: 'WriteMemory', key: memoryKey(t), value: memoryValue(t) };
  }
}

/** A conversation the library-level systems can store: step `s` (0..4) of turn `t` as a Rewind command. */
export interface Conversation {
  /** Short name, in row keys and session ids. */
  readonly name: string;
  /** For people. */
  readonly title: string;
  command(t: number, s: number): SessionCommand;
}

/** The suite's conversation (W1–W7): the steps above. */
export const HOTEL_SEARCH: Conversation = {
  name: 'hotels',
  title: 'hotel search (user, tool call, result, agent answer, memory write)',
  command: stepCommand,
};

const orderId = (t: number) => `A-${10_480 + t}`;
const eta = (t: number) => `2026-03-${String(1 + (t % 28)).padStart(2, '0')}`;

/** Issue 17's harness turn: a user message, a tool call, its result, a memory write, an agent answer. */
export const ORDER_SUPPORT: Conversation = {
  name: 'orders',
  title: 'order support (user, tool call, result, memory write, agent answer)',
  command(t: number, s: number): SessionCommand {
    switch (s) {
      case 0:
        return { type: 'RecordMessage', role: 'user', content: `Hi, where is my order ${orderId(t)}? It was supposed to arrive this week.` };
      case 1:
        return { type: 'StartToolCall', toolCallId: `lookup-${t}`, tool: 'lookup_order', input: { orderId: orderId(t), includeTracking: true } };
      case 2:
        return {
          type: 'CompleteToolCall',
          toolCallId: `lookup-${t}`,
          output: { orderId: orderId(t), status: t % 3 === 0 ? 'delayed' : 'in_transit', carrier: 'DHL', eta: eta(t), items: 1 + (t % 4) },
        };
      case 3:
        return { type: 'WriteMemory', key: 'last_order', value: { orderId: orderId(t), eta: eta(t) } };
      default:
        return { type: 'RecordMessage', role: 'agent', content: `Your order ${orderId(t)} is with DHL and should arrive on ${eta(t)}.` };
    }
  },
};

export interface StepRequest {
  method: 'POST' | 'PUT';
  path: string;
  body: JsonValue;
}

/** Step `s` of turn `t` as the public HTTP request (paths relative to the server root). */
export function stepRequest(sessionId: string, t: number, s: number): StepRequest {
  const base = `/v1/sessions/${sessionId}`;
  switch (s) {
    case 0:
      return { method: 'POST', path: `${base}/messages`, body: { role: 'user', content: question(t) } };
    case 1:
      return { method: 'POST', path: `${base}/tool-calls`, body: { toolCallId: `call-${t}`, tool: 'search_hotels', input: toolInput(t) } };
    case 2:
      return { method: 'POST', path: `${base}/tool-calls/call-${t}/succeed`, body: { output: toolOutput(t) } };
    case 3:
      return { method: 'POST', path: `${base}/messages`, body: { role: 'agent', content: answer(t) } };
    default:
      return { method: 'PUT', path: `${base}/memory/${memoryKey(t)}`, body: { value: memoryValue(t) } };
  }
}

/** Step `s` of turn `t` as one element of `POST /v1/sessions/:id/steps`. */
export function stepOfBatch(t: number, s: number): JsonValue {
  switch (s) {
    case 0:
      return { kind: 'message', role: 'user', content: question(t) };
    case 1:
      return { kind: 'tool-call', toolCallId: `call-${t}`, tool: 'search_hotels', input: toolInput(t) };
    case 2:
      return { kind: 'tool-result', toolCallId: `call-${t}`, output: toolOutput(t) };
    case 3:
      return { kind: 'message', role: 'agent', content: answer(t) };
    default:
      return { kind: 'memory', key: memoryKey(t), value: memoryValue(t) };
  }
}

/** A conversation's command as one element of `POST /v1/sessions/:id/steps` (the steps the bench's conversations use). */
export function stepOfCommand(command: SessionCommand): JsonValue {
  switch (command.type) {
    case 'RecordMessage':
      return { kind: 'message', role: command.role, content: command.content };
    case 'StartToolCall':
      return { kind: 'tool-call', toolCallId: command.toolCallId, tool: command.tool, input: command.input };
    case 'CompleteToolCall':
      return { kind: 'tool-result', toolCallId: command.toolCallId, output: command.output };
    case 'WriteMemory':
      return { kind: 'memory', key: command.key, value: command.value };
    default:
      throw new Error(`The bench's conversations have no ${command.type} step.`);
  }
}

/** Turn `t` whole (its 5 steps, 5 events) as one request. */
export function turnRequest(sessionId: string, t: number): StepRequest {
  return { method: 'POST', path: `/v1/sessions/${sessionId}/steps`, body: { steps: Array.from({ length: STEPS_PER_TURN }, (_, s) => stepOfBatch(t, s)) } };
}

/** Writes `turns` turns through the library (one `execute` per step). */
export async function writeTurns(
  service: SessionService,
  sessionId: string,
  fromTurn: number,
  turns: number,
  onStep?: (ms: number, turn: number) => void,
  conversation: Conversation = HOTEL_SEARCH,
): Promise<void> {
  for (let t = fromTurn; t < fromTurn + turns; t++) {
    for (let s = 0; s < STEPS_PER_TURN; s++) {
      const start = performance.now();
      await service.execute(benchCaller, sessionId, conversation.command(t, s));
      onStep?.(performance.now() - start, t + 1);
    }
  }
}

/**
 * The exact events Rewind records for a session of `turns` turns (SessionStarted + 5 per turn),
 * produced by the real engine on an in-memory store.
 */
export async function generateSessionEvents(sessionId: string, turns: number, conversation: Conversation = HOTEL_SEARCH): Promise<StoredEvent[]> {
  const store = new InMemoryEventStore();
  const service = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
  await service.startSession(benchCaller, { sessionId });
  await writeTurns(service, sessionId, 0, turns, undefined, conversation);
  return store.readStream(sessionStreamId(BENCH_TENANT, sessionId));
}

export function toNewEvent(event: StoredEvent): NewEvent {
  return { eventId: event.eventId, type: event.type, data: event.data, parentVersion: event.parentVersion, metadata: event.metadata };
}

// ---- LangGraph's view of the same conversation -------------------------------------

/** A message as LangGraph's message channel holds it (turned into LangChain message objects by the adapter). */
export type ChatMessage =
  | { kind: 'human'; id: string; content: string }
  | { kind: 'ai'; id: string; content: string; toolCalls?: { id: string; name: string; args: JsonValue }[] }
  | { kind: 'tool'; id: string; toolCallId: string; content: string };

/** What step `s` of turn `t` changes in LangGraph state: a new message, or a memory entry. */
export function stepUpdate(t: number, s: number): { message: ChatMessage } | { memory: [string, JsonValue] } {
  switch (s) {
    case 0:
      return { message: { kind: 'human', id: `m-${t}-u`, content: question(t) } };
    case 1:
      return { message: { kind: 'ai', id: `m-${t}-c`, content: '', toolCalls: [{ id: `call-${t}`, name: 'search_hotels', args: toolInput(t) }] } };
    case 2:
      return { message: { kind: 'tool', id: `m-${t}-r`, toolCallId: `call-${t}`, content: JSON.stringify(toolOutput(t)) } };
    case 3:
      return { message: { kind: 'ai', id: `m-${t}-a`, content: answer(t) } };
    default:
      return { memory: [memoryKey(t), memoryValue(t)] };
  }
}
