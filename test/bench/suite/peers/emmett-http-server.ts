/**
 * A minimal Node HTTP server in front of Emmett's PostgreSQL event store, for W4: it answers the
 * same requests as Rewind's API (same paths and bodies), turns each into the same event Rewind
 * would record (same types, data shape and metadata) and appends it with `appendToStream` and the
 * expected version it keeps in memory.
 *
 * Deliberately lighter than Rewind's API (in Emmett's favour): a constant-time compare of the
 * bearer token against one key held in memory (Rewind hashes the key and looks it up in its store
 * on every request), no DTO validation, no idempotency keys, no decide step beyond the mapping.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import { sessionStreamId } from '@rewind/engine';
import { encodeMetadata } from '@rewind/event-store';
import { BENCH_TENANT } from '../conversation';

interface SessionInfo {
  version: number;
  turnId: string | null;
  busy: Promise<unknown>;
}

export class EmmettHttpServer {
  private server?: Server;
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly key: Buffer;
  url = '';

  constructor(
    private readonly eventStore: PostgresEventStore,
    apiKey: string,
  ) {
    this.key = Buffer.from(apiKey);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private authorized(req: IncomingMessage): boolean {
    const match = /^Bearer\s+(\S+)$/.exec(req.headers.authorization ?? '');
    const presented = Buffer.from(match?.[1] ?? '');
    return presented.length === this.key.length && timingSafeEqual(presented, this.key);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, payload: unknown) => {
      const body = JSON.stringify(payload);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    try {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      if (!this.authorized(req)) return send(401, { error: { code: 'unauthorized' } });
      const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
      const path = (req.url ?? '/').split('?')[0]!;
      if (req.method === 'POST' && path === '/v1/sessions') {
        const sessionId = String(body.sessionId);
        const info: SessionInfo = { version: 0, turnId: null, busy: Promise.resolve() };
        this.sessions.set(sessionId, info);
        const version = await this.append(sessionId, info, 'SessionStarted', { sessionId, title: null, metadata: {} });
        return send(201, { sessionId, version });
      }
      const m = /^\/v1\/sessions\/([^/]+)\/(messages|tool-calls|tool-calls\/([^/]+)\/succeed|memory\/([^/]+))$/.exec(path);
      const info = m ? this.sessions.get(m[1]!) : undefined;
      if (!m || !info) return send(404, { error: { code: 'not_found' } });
      const sessionId = m[1]!;
      let type: string;
      let data: Record<string, unknown>;
      if (m[2] === 'messages' && body.role === 'user') {
        info.turnId = randomUUID();
        type = 'UserMessageReceived';
        data = { turnId: info.turnId, messageId: randomUUID(), content: body.content };
      } else if (m[2] === 'messages') {
        type = 'AgentMessageProduced';
        data = { turnId: info.turnId, messageId: randomUUID(), content: body.content };
      } else if (m[2] === 'tool-calls') {
        type = 'ToolCallStarted';
        data = { toolCallId: body.toolCallId, tool: body.tool, input: body.input, effect: { kind: 'none' }, confirmed: false, turnId: info.turnId };
      } else if (m[3] !== undefined) {
        type = 'ToolCallSucceeded';
        data = { toolCallId: decodeURIComponent(m[3]), output: body.output };
      } else {
        type = 'MemoryWritten';
        data = { key: decodeURIComponent(m[4]!), value: body.value };
      }
      const version = await this.append(sessionId, info, type, data);
      return send(req.method === 'PUT' ? 200 : 201, { sessionId, version });
    } catch (error) {
      send(500, { error: { code: 'internal', message: (error as Error).message } });
    }
  }

  /** One append at a time per session (as Rewind's per-session mutex), expected version from memory. */
  private append(sessionId: string, info: SessionInfo, type: string, data: Record<string, unknown>): Promise<number> {
    const run = info.busy.then(async () => {
      const commandId = randomUUID();
      const eventId = randomUUID();
      const result = await this.eventStore.appendToStream(
        sessionStreamId(BENCH_TENANT, sessionId),
        [
          {
            type,
            data,
            // The same compact metadata Rewind's stores write (see toEmmettEvent).
            metadata: {
              ...(JSON.parse(
                encodeMetadata(
                  {
                    tenantId: BENCH_TENANT,
                    sessionId,
                    commandId,
                    causationId: null,
                    correlationId: commandId,
                    actor: 'key:bench',
                    occurredAt: new Date().toISOString(),
                    schemaVersion: 1,
                  },
                  sessionStreamId(BENCH_TENANT, sessionId),
                ),
              ) as Record<string, unknown>),
              p: info.version === 0 ? null : info.version,
              messageId: eventId,
            },
          },
        ],
        { expectedStreamVersion: BigInt(info.version) },
      );
      info.version = Number(result.nextExpectedStreamVersion);
      return info.version;
    });
    info.busy = run.catch(() => undefined);
    return run;
  }
}
