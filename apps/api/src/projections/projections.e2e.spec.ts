import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, NestFactory } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectDescriptor } from '@rewind/domain';
import { SessionService, type Caller } from '@rewind/engine';
import { backendsUnderTest, createTestDatabase } from '@rewind/projections/testing';
import { InlineCompensationChannel } from '@rewind/sagas';
import { ensureAdminKey, type ApiKeyStore } from '@rewind/tenancy';
import { httpClient, type Http } from '../../../../test/support/http-client';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { ApiExceptionFilter } from '../common/api-exception.filter';
import { createValidationPipe } from '../common/validation';
import { loadConfig } from '@rewind/config';
import { openBackend } from '@rewind/runtime';
import { InfrastructureModule } from '../infrastructure/infrastructure.module';
import { API_KEY_STORE } from '../infrastructure/tokens';
import { ProjectionsModule } from './projections.module';

/*
 * The query routes over HTTP, on the embedded store. Until the lead wires ProjectionsModule
 * into AppModule (and drops the old GET /v1/sessions of SessionsController), this builds the
 * app from the same parts: infrastructure, the global guard, filter and validation pipe, and
 * this module. Writes go through the real SessionService.
 */
/** Polls until `check` holds; fails after a generous deadline (never a timing assertion). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`query routes served from the projections on ${on}`, () => {
    let dataDir = '';
    const adminKey = `test-admin-${randomBytes(12).toString('hex')}`;
    let database: { url: string; drop(): Promise<void> } | null = null;
    let app: NestFastifyApplication;
    let http: Http;
    let acme: Http;
    let sessions: SessionService;
    let openapi: OpenAPIObject;
    let baseUrl = '';
    const caller: Caller = { tenantId: 'default', actor: 'key:agent-1' };
    const REVERSIBLE: EffectDescriptor = { kind: 'reversible', compensation: { channel: 'inline', target: 'cancel' } };

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'rewind-proj-e2e-'));
      // PostgreSQL: a fresh database, used with the API's default schemas (rewind, rewind_read).
      if (backend.name === 'postgres') database = await createTestDatabase('rewind_proj_e2e');
      const config = loadConfig({
        REWIND_LOG_LEVEL: 'error',
        REWIND_DATA_DIR: dataDir,
        REWIND_ADMIN_KEY: adminKey,
        ...(database ? { REWIND_STORE: 'postgres', DATABASE_URL: database.url } : {}),
      });
      @Module({
        imports: [CqrsModule.forRoot(), InfrastructureModule.forConfig(config, await openBackend(config)), ProjectionsModule.forRoot({ idleDelayMs: 20 })],
        providers: [
          { provide: APP_GUARD, useClass: ApiKeyGuard },
          { provide: APP_FILTER, useClass: ApiExceptionFilter },
          { provide: APP_PIPE, useFactory: createValidationPipe },
        ],
      })
      class TestAppModule {}

      app = await NestFactory.create<NestFastifyApplication>(TestAppModule, new FastifyAdapter(), { logger: ['error'] });
      openapi = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('Rewind').build());
      const keys = app.get<ApiKeyStore>(API_KEY_STORE);
      await ensureAdminKey(keys, adminKey);
      await app.listen(0, '127.0.0.1');
      baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
      http = httpClient(baseUrl, adminKey);
      acme = httpClient(baseUrl, (await keys.create({ tenantId: 'acme', name: 'acme agent', scopes: ['write', 'read', 'audit'] })).key);
      sessions = app.get(SessionService);

      // Three sessions of tenant "default", one of tenant "acme".
      await sessions.startSession(caller, { sessionId: 'lisbon', title: 'Trip to Lisbon' });
      await sessions.execute(caller, 'lisbon', { type: 'RecordMessage', role: 'user', content: 'Plan 3 days in Lisbon' });
      await sessions.execute(caller, 'lisbon', {
        type: 'StartToolCall',
        toolCallId: 'search',
        tool: 'search_hotels',
        input: { city: 'Lisbon' },
        effect: { kind: 'none' },
      });
      await sessions.execute(caller, 'lisbon', { type: 'CompleteToolCall', toolCallId: 'search', output: { hotels: 3 } });
      await sessions.execute(caller, 'lisbon', {
        type: 'StartToolCall',
        toolCallId: 'book',
        tool: 'book_hotel',
        input: { hotel: 'Alfama Inn' },
        effect: REVERSIBLE,
      });
      await sessions.execute(caller, 'lisbon', { type: 'CompleteToolCall', toolCallId: 'book', output: { bookingId: 'B1' } });
      await sessions.startSession({ tenantId: 'default', actor: 'key:agent-2' }, { sessionId: 'kyoto', title: 'KYOTO in autumn (100% leaves)' });
      await sessions.startSession(caller, { sessionId: 'porto' });
      await sessions.startSession({ tenantId: 'acme', actor: 'key:acme' }, { sessionId: 'lisbon', title: 'Acme offsite in Lisbon' });
    });

    /**
     * A read right after writes sees every write acknowledged before the request, on both stores
     * (on PostgreSQL a commit can be held back behind an older transaction in flight: the query
     * waits for the committed tail, not for the readable prefix).
     */
    async function readAfterWrite(path: string, ready: (body: any) => boolean) {
      const response = await http('GET', path);
      expect(ready(response.body)).toBe(true);
      return response;
    }

    it.runIf(backend.name === 'postgres')(
      'read-your-writes: a write held back behind an older transaction still in flight is waited for, not missed [PostgreSQL only: SQLite commits one writer at a time, nothing is held back]',
      async () => {
        // An older transaction of this database, with its id, still open: the write below commits
        // after it started, so the log cannot give it to readers until it ends (the no-holes rule).
        const older = new pg.Client({ connectionString: database!.url });
        await older.connect();
        try {
          await older.query('BEGIN');
          await older.query('SELECT pg_current_xact_id()');
          const ryw = httpClient(
            baseUrl,
            (await app.get<ApiKeyStore>(API_KEY_STORE).create({ tenantId: 'held', name: 'held', scopes: ['write', 'read', 'audit'] })).key,
          );
          await sessions.startSession({ tenantId: 'held', actor: 'key:held' }, { sessionId: 'held-back' });
          setTimeout(() => void older.query('COMMIT'), 400);
          const seen = (await ryw('GET', '/v1/audit?sessionId=held-back')).body.items as { type: string }[];
          expect(seen.map((e) => e.type)).toEqual(['SessionStarted']);
        } finally {
          await older.end();
        }
      },
    );

    it('read-your-writes: 12 writers each read the audit log right after every acknowledged write, and see it', async () => {
      // A tenant of its own, so the other tests' counts stay theirs.
      const ryw = httpClient(
        baseUrl,
        (await app.get<ApiKeyStore>(API_KEY_STORE).create({ tenantId: 'ryw', name: 'ryw', scopes: ['write', 'read', 'audit'] })).key,
      );
      const writer: Caller = { tenantId: 'ryw', actor: 'key:ryw' };
      const misses: string[] = [];
      await Promise.all(
        Array.from({ length: 12 }, async (_, w) => {
          const sessionId = `ryw-${w}`;
          await sessions.startSession(writer, { sessionId });
          for (let i = 0; i < 6; i++) {
            const appended = await sessions.execute(writer, sessionId, { type: 'RecordMessage', role: 'user', content: `message ${i}` });
            const seen = (await ryw('GET', `/v1/audit?sessionId=${sessionId}&limit=100`)).body.items as { type: string }[];
            if (seen.length !== appended.version) misses.push(`${sessionId}@${appended.version}: saw ${seen.length}`);
          }
        }),
      );
      expect(misses).toEqual([]);
    });

    afterAll(async () => {
      await app?.close();
      await database?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it("lists the tenant's sessions from the projection, with the writes acknowledged before the request", async () => {
      const response = await readAfterWrite('/v1/sessions', (body) => body.items?.length === 3);
      expect(response.status).toBe(200);
      expect(response.body.nextCursor).toBeNull();
      expect(response.body.items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['kyoto', 'lisbon', 'porto']);
      expect(response.body.items[1]).toEqual({
        sessionId: 'lisbon',
        title: 'Trip to Lisbon',
        status: 'active',
        head: 6,
        version: 6,
        messageCount: 1,
        toolCallCount: 2,
        currentBranchMessageCount: 1,
        currentBranchToolCallCount: 2,
        branchCount: 1,
        failedEffects: 0,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });

      // A write right before a read is in it.
      await sessions.execute(caller, 'porto', { type: 'RecordMessage', role: 'user', content: 'and Porto?' });
      const isPorto = (s: { sessionId: string }) => s.sessionId === 'porto';
      const porto = (await readAfterWrite('/v1/sessions', (body) => body.items.find(isPorto)?.version === 2)).body.items.find(isPorto);
      expect(porto).toMatchObject({ sessionId: 'porto', title: null, version: 2, messageCount: 1 });
    });

    it('pages with an opaque cursor, in every sort order', async () => {
      const page1 = await http('GET', '/v1/sessions?limit=2');
      expect(page1.body.items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['kyoto', 'lisbon']);
      expect(page1.body.nextCursor).toEqual(expect.any(String));
      const page2 = await http('GET', `/v1/sessions?limit=2&cursor=${page1.body.nextCursor}`);
      expect(page2.body).toMatchObject({ items: [{ sessionId: 'porto' }], nextCursor: null });

      const newest: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { items: { sessionId: string }[]; nextCursor: string | null } } = await http(
          'GET',
          `/v1/sessions?sort=createdAt&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        );
        newest.push(...page.body.items.map((s) => s.sessionId));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(newest).toEqual(['porto', 'kyoto', 'lisbon']);

      const wrongOrder = await http('GET', `/v1/sessions?sort=updatedAt&cursor=${page1.body.nextCursor}`);
      expect(wrongOrder.status).toBe(400);
      expect(wrongOrder.body.error).toMatchObject({ code: 'invalid_cursor', details: [{ field: 'cursor' }] });
      expect(wrongOrder.body.error.message).toContain('pass back the nextCursor of the previous page unchanged');
    });

    it('filters by status, title (case-insensitive, literal % and _) and activity time', async () => {
      expect((await http('GET', '/v1/sessions?q=kyoto')).body.items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['kyoto']);
      expect((await http('GET', '/v1/sessions?q=100%25')).body.items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['kyoto']);
      expect((await http('GET', '/v1/sessions?q=1_0')).body.items).toEqual([]);
      expect((await http('GET', '/v1/sessions?status=needs_attention')).body.items).toEqual([]);
      expect((await http('GET', '/v1/sessions?status=active')).body.items).toHaveLength(3);
      const all = (await http('GET', '/v1/sessions?sort=updatedAt')).body.items as { sessionId: string; updatedAt: string }[];
      const last = all[0]!;
      expect((await http('GET', `/v1/sessions?updatedAfter=${encodeURIComponent(last.updatedAt)}`)).body.items).toEqual([]);
      const before = (await http('GET', `/v1/sessions?updatedBefore=${encodeURIComponent(last.updatedAt)}`)).body.items as { sessionId: string }[];
      expect(before.map((s) => s.sessionId).sort()).toEqual(
        all
          .slice(1)
          .map((s) => s.sessionId)
          .sort(),
      );
    });

    it('never shows another tenant anything', async () => {
      expect((await acme('GET', '/v1/sessions')).body.items.map((s: { title: string }) => s.title)).toEqual(['Acme offsite in Lisbon']);
      expect((await acme('GET', '/v1/tool-calls')).body.items).toEqual([]);
      const audit = (await acme('GET', '/v1/audit')).body.items as { streamId: string; actor: string }[];
      expect(audit).toEqual([expect.objectContaining({ streamId: 'session:acme:lisbon', actor: 'key:acme' })]);
      expect((await acme('GET', '/v1/audit?sessionId=kyoto')).body.items).toEqual([]);
      expect((await http('GET', '/v1/audit?actor=key:acme')).body.items).toEqual([]);
    });

    it('answers the audit log in log order, filtered by session, type, actor and time, paged', async () => {
      const all = (await http('GET', '/v1/audit?limit=1000')).body.items as {
        eventId: string;
        type: string;
        sessionId: string;
        actor: string;
        occurredAt: string;
        commandId: string;
      }[];
      expect(all).toHaveLength(9); // lisbon 6, kyoto 1, porto 2
      expect(JSON.stringify(all)).not.toMatch(/position/i); // its place in the whole log would count other tenants' writes
      expect(all.map((e) => e.occurredAt)).toEqual([...all.map((e) => e.occurredAt)].sort());
      expect(all.every((e) => typeof e.commandId === 'string')).toBe(true);

      const lisbon = (await http('GET', '/v1/audit?sessionId=lisbon')).body.items as { type: string }[];
      expect(lisbon.map((e) => e.type)).toEqual([
        'SessionStarted',
        'UserMessageReceived',
        'ToolCallStarted',
        'ToolCallSucceeded',
        'ToolCallStarted',
        'ToolCallSucceeded',
      ]);
      expect((await http('GET', '/v1/audit?type=SessionStarted')).body.items.map((e: { sessionId: string }) => e.sessionId)).toEqual([
        'lisbon',
        'kyoto',
        'porto',
      ]);
      expect((await http('GET', '/v1/audit?actor=key:agent-2')).body.items).toEqual([expect.objectContaining({ sessionId: 'kyoto', type: 'SessionStarted' })]);
      const kyoto = all.find((e) => e.sessionId === 'kyoto')!;
      const window = (
        await http(
          'GET',
          `/v1/audit?from=${encodeURIComponent(kyoto.occurredAt)}&to=${encodeURIComponent(new Date(Date.parse(kyoto.occurredAt) + 1).toISOString())}`,
        )
      ).body.items;
      expect(window.map((e: { sessionId: string }) => e.sessionId)).toContain('kyoto');
      expect(window.every((e: { occurredAt: string }) => e.occurredAt === kyoto.occurredAt)).toBe(true);

      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { items: { eventId: string }[]; nextCursor: string | null } } = await http(
          'GET',
          `/v1/audit?limit=4${cursor ? `&cursor=${cursor}` : ''}`,
        );
        pages.push(...page.body.items.map((e) => e.eventId));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(pages).toEqual(all.map((e) => e.eventId));
    });

    it('answers the audit log newest first and by several types, and refuses a bad order or type list with the fields named', async () => {
      const all = (await http('GET', '/v1/audit?limit=1000')).body.items as { eventId: string; type: string }[];
      const newest: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { items: { eventId: string }[]; nextCursor: string | null } } = await http(
          'GET',
          `/v1/audit?order=desc&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
        );
        newest.push(...page.body.items.map((e) => e.eventId));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(newest).toEqual(all.map((e) => e.eventId).reverse());
      const calls = (await http('GET', '/v1/audit?type=ToolCallStarted,ToolCallSucceeded')).body.items as { type: string }[];
      expect(calls.map((e) => e.type)).toEqual(all.filter((e) => e.type.startsWith('ToolCall')).map((e) => e.type));
      const badOrder = await http('GET', '/v1/audit?order=sideways');
      expect(badOrder.status).toBe(400);
      expect(JSON.stringify(badOrder.body.error.details)).toContain('order must be one of asc, desc');
      expect((await http('GET', '/v1/audit?type=ToolCallStarted,,x')).status).toBe(400);
    });

    it('answers the tool-call ledger, with effects and what rollbacks did about them', async () => {
      const ledger = (await http('GET', '/v1/tool-calls?sessionId=lisbon')).body.items;
      expect(ledger).toEqual([
        expect.objectContaining({
          toolCallId: 'search',
          tool: 'search_hotels',
          status: 'succeeded',
          effect: 'none',
          startedVersion: 3,
          finishedVersion: 4,
          compensation: null,
        }),
        expect.objectContaining({ toolCallId: 'book', tool: 'book_hotel', status: 'succeeded', effect: 'reversible', compensation: null }),
      ]);
      expect((await http('GET', '/v1/tool-calls?effect=reversible')).body.items.map((c: { toolCallId: string }) => c.toolCallId)).toEqual(['book']);

      // Roll back past the booking. The saga compensates it through an inline compensator that
      // waits for our go: meanwhile the ledger shows it pending and the session rolling back.
      let release!: () => void;
      const go = new Promise<void>((resolve) => (release = resolve));
      app.get(InlineCompensationChannel).register('cancel', async () => {
        await go;
        return { cancelled: true };
      });
      await sessions.execute(caller, 'lisbon', { type: 'MoveHead', kind: 'rollback', toVersion: 2 });
      const pending = (await readAfterWrite('/v1/tool-calls?compensation=pending', (body) => body.items.length === 1)).body.items;
      expect(pending).toEqual([expect.objectContaining({ toolCallId: 'book', compensation: expect.objectContaining({ status: 'pending', attempts: 0 }) })]);
      const rollingBack = await readAfterWrite('/v1/sessions?status=rolling_back', (body) => body.items.length === 1);
      expect(rollingBack.body.items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['lisbon']);
      const rollbackId = pending[0].compensation.rollbackId as string;

      release();
      await eventually('the saga to finish the rollback', async () => (await http('GET', '/v1/sessions?status=active&q=lisbon')).body.items.length === 1);
      expect((await http('GET', '/v1/tool-calls?compensation=compensated')).body.items).toEqual([
        expect.objectContaining({ toolCallId: 'book', compensation: { status: 'compensated', attempts: 1, rollbackId, detail: null } }),
      ]);
      expect((await http('GET', '/v1/sessions?q=lisbon')).body.items).toEqual([expect.objectContaining({ status: 'active', head: 2 })]);
      expect((await http('GET', '/v1/audit?type=RollbackCompleted')).body.items).toEqual([expect.objectContaining({ sessionId: 'lisbon' })]);
    });

    it("reports each projection's position, the head of the log and the lag", async () => {
      const response = await http('GET', '/v1/projections');
      expect(response.status).toBe(200);
      const byName = Object.fromEntries((response.body.projections as { name: string }[]).map((p) => [p.name, p]));
      expect(Object.keys(byName)).toEqual(['sessions', 'ledger', 'audit']);
      for (const p of Object.values(byName)) {
        expect(p).toMatchObject({ state: 'active', lastError: null, rebuild: null, pausedUntil: null });
        expect(p).toHaveProperty('lag');
      }
      // After a query waited for it, the audit projection has everything.
      await http('GET', '/v1/audit?limit=1');
      const audit = (await http('GET', '/v1/projections')).body.projections.find((p: { name: string }) => p.name === 'audit');
      expect(audit.position).toBe(audit.head);
      expect(audit.lag).toBe(0);
    });

    it('refuses bad query parameters field by field, and requests without a key', async () => {
      const bad = await http('GET', '/v1/sessions?status=sleeping&limit=0');
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('validation_failed');
      expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['limit', 'status']);
      expect((await http('GET', '/v1/audit?from=yesterday')).body.error.details).toEqual([expect.objectContaining({ field: 'from' })]);
      expect((await http('GET', '/v1/tool-calls?effect=maybe')).body.error.details).toEqual([expect.objectContaining({ field: 'effect' })]);
      expect((await http('GET', '/v1/sessions?colour=red')).status).toBe(400);
      expect((await http('GET', '/v1/audit?cursor=not-a-cursor')).body.error.code).toBe('invalid_cursor');
      const anonymous = await httpClient(`http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`)('GET', '/v1/audit');
      expect(anonymous.status).toBe(401);
    });

    it('documents the routes and their parameters in the OpenAPI document', () => {
      for (const path of ['/v1/sessions', '/v1/audit', '/v1/tool-calls', '/v1/projections']) expect(openapi.paths[path]?.get).toBeDefined();
      const params = (openapi.paths['/v1/audit']!.get!.parameters ?? []) as { name: string }[];
      expect(params.map((p) => p.name).sort()).toEqual(['actor', 'cursor', 'from', 'limit', 'order', 'sessionId', 'to', 'type']);
      expect(openapi.components?.schemas?.SessionPageDto).toBeDefined();
    });
  });
}
