/**
 * Emmett's CommandHandler behind Fastify (issue 40), for W4: the same requests as Rewind's API (same
 * paths and bodies, a turn per request on `POST /v1/sessions/:id/steps` too), each handled the way
 * Emmett's documentation writes a command: `CommandHandler({ evolve, initialState })` reads the
 * session's stream, folds it into a small state (its version and the open turn), and the handler
 * turns the request into the same events Rewind would record (same types, data shape and compact
 * metadata), appended with the stream version it read (a conflict is retried by Emmett).
 *
 * In Emmett's favour, as the node:http peer: a constant-time compare of the bearer token against
 * one key held in memory, no DTO validation, no idempotency keys, a fold of two fields.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { CommandHandler, type Event, type ReadEvent } from '@event-driven-io/emmett';
import type { PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { sessionStreamId } from '@rewind/engine';
import { encodeMetadata } from '@rewind/event-store';
import { BENCH_TENANT } from '../conversation';

type SessionEvent = Event<string, Record<string, unknown>, Record<string, unknown>>;

/** What a decision here needs: the stream's version (for the parent link) and the open turn. */
interface SessionState {
  version: number;
  turnId: string | null;
}

/** A step as `POST /v1/sessions/:id/steps` carries it; the single-step routes are mapped to one. */
type Step = Record<string, unknown> & { kind: string };

const handle = CommandHandler<SessionState, SessionEvent>({
  initialState: () => ({ version: 0, turnId: null }),
  evolve: (state, event) => {
    const data = (event as ReadEvent<SessionEvent>).data;
    return { version: state.version + 1, turnId: event.type === 'UserMessageReceived' ? (data.turnId as string) : state.turnId };
  },
});

/** The events Rewind records for these steps, from the state the handler read. */
function decide(sessionId: string, steps: Step[], state: SessionState): SessionEvent[] {
  const commandId = randomUUID();
  const occurredAt = new Date().toISOString();
  let { version, turnId } = state;
  return steps.map((step) => {
    let type: string;
    let data: Record<string, unknown>;
    if (step.kind === 'message' && step.role === 'user') {
      turnId = randomUUID();
      [type, data] = ['UserMessageReceived', { turnId, messageId: randomUUID(), content: step.content }];
    } else if (step.kind === 'message') [type, data] = ['AgentMessageProduced', { turnId, messageId: randomUUID(), content: step.content }];
    else if (step.kind === 'tool-call')
      [type, data] = [
        'ToolCallStarted',
        { toolCallId: step.toolCallId, tool: step.tool, input: step.input, effect: { kind: 'none' }, confirmed: false, turnId },
      ];
    else if (step.kind === 'tool-result') [type, data] = ['ToolCallSucceeded', { toolCallId: step.toolCallId, output: step.output }];
    else if (step.kind === 'memory') [type, data] = ['MemoryWritten', { key: step.key, value: step.value }];
    else [type, data] = ['SessionStarted', { sessionId, title: null, metadata: {} }];
    const metadata = JSON.parse(
      encodeMetadata(
        { tenantId: BENCH_TENANT, sessionId, commandId, causationId: null, correlationId: commandId, actor: 'key:bench', occurredAt, schemaVersion: 1 },
        sessionStreamId(BENCH_TENANT, sessionId),
      ),
    ) as Record<string, unknown>;
    const event = { type, data, metadata: { ...metadata, p: version === 0 ? null : version, messageId: randomUUID() } };
    version++;
    return event;
  });
}

export class EmmettFastifyServer {
  private app?: FastifyInstance;
  private readonly key: Buffer;

  constructor(
    private readonly eventStore: PostgresEventStore,
    apiKey: string,
  ) {
    this.key = Buffer.from(apiKey);
  }

  async start(): Promise<string> {
    const app = Fastify({ logger: false });
    app.addHook('onRequest', (request, reply, done) => {
      const presented = Buffer.from(/^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '');
      if (presented.length === this.key.length && timingSafeEqual(presented, this.key)) return done();
      void reply.code(401).send({ error: { code: 'unauthorized' } });
    });
    type Params = { id: string; callId?: string; key?: string };
    const write =
      (stepsOf: (request: FastifyRequest<{ Params: Params; Body: Record<string, unknown> }>) => Step[], status = 201) =>
      async (request: FastifyRequest<{ Params: Params; Body: Record<string, unknown> }>, reply: FastifyReply) => {
        const sessionId = request.params.id;
        const steps = stepsOf(request);
        const result = await handle(this.eventStore, sessionStreamId(BENCH_TENANT, sessionId), (state) => decide(sessionId, steps, state));
        reply.code(status);
        return { sessionId, version: Number(result.nextExpectedStreamVersion) };
      };
    app.post<{ Body: { sessionId: string } }>('/v1/sessions', async (request, reply) => {
      const sessionId = String(request.body.sessionId);
      const result = await handle(this.eventStore, sessionStreamId(BENCH_TENANT, sessionId), (state) => decide(sessionId, [{ kind: 'start' }], state), {
        expectedStreamVersion: 'STREAM_DOES_NOT_EXIST',
      });
      reply.code(201);
      return { sessionId, version: Number(result.nextExpectedStreamVersion) };
    });
    app.post(
      '/v1/sessions/:id/messages',
      write((r) => [{ kind: 'message', ...r.body }]),
    );
    app.post(
      '/v1/sessions/:id/tool-calls',
      write((r) => [{ kind: 'tool-call', ...r.body }]),
    );
    app.post(
      '/v1/sessions/:id/tool-calls/:callId/succeed',
      write((r) => [{ kind: 'tool-result', toolCallId: r.params.callId, output: r.body.output }]),
    );
    app.put(
      '/v1/sessions/:id/memory/:key',
      write((r) => [{ kind: 'memory', key: r.params.key, value: r.body.value }], 200),
    );
    app.post(
      '/v1/sessions/:id/steps',
      write((r) => r.body.steps as Step[]),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    this.app = app;
    return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }
}
