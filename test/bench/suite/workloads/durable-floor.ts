/**
 * The durable floor (issue 40): the null server (http-ceiling.ts) plus one durable INSERT of the
 * request body before it answers — nothing decided, validated or authenticated. No durable API on
 * this machine and store can answer a write faster than this, so W4 and the one-message path are
 * reported as a share of it, beside the null server (which bounds HTTP alone).
 *  - PostgreSQL: a pool of as many connections as Rewind's (REWIND_PG_POOL_SIZE's default),
 *    `synchronous_commit` on, one INSERT (an implicit transaction) per write request;
 *  - SQLite: one better-sqlite3 connection, WAL, `synchronous=FULL` as Rewind's default.
 * Reads (GET) answer `readAnswer` from memory, as the null server does.
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { createBenchDatabase } from '../databases';
import type { StoreName } from '../results';

/** Rewind's default PostgreSQL pool (REWIND_PG_POOL_SIZE), so both hold the same connections. */
const POOL_SIZE = 20;

export interface DurableFloor {
  baseUrl: string;
  store: StoreName;
  description: string;
  close(): Promise<void>;
}

/** How a body is stored: one INSERT, durable when the promise settles. */
type Insert = (body: string) => Promise<void> | void;

async function openInsert(store: StoreName, run: string): Promise<{ insert: Insert; close(): Promise<void> }> {
  if (store === 'postgres') {
    const db = await createBenchDatabase(run, 'floor');
    const pool = new Pool({ connectionString: db.url, max: POOL_SIZE });
    await pool.query('CREATE TABLE requests (id bigserial PRIMARY KEY, body jsonb NOT NULL)');
    return {
      insert: async (body) => {
        await pool.query({ name: 'floor-insert', text: 'INSERT INTO requests (body) VALUES ($1)', values: [body] });
      },
      close: async () => {
        await pool.end();
        await db.drop();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'rewind-bench-floor-'));
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE requests (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const statement = db.prepare('INSERT INTO requests (body) VALUES (?)');
  return {
    insert: (body) => void statement.run(body),
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startDurableFloor(store: StoreName, run: string, readAnswer: unknown = {}): Promise<DurableFloor> {
  const { insert, close } = await openInsert(store, run);
  const app = Fastify({ logger: false });
  // The body as text, parsed once (as the null server and Rewind do) and stored as it came.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    try {
      JSON.parse(text as string);
      done(null, text);
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  let version = 0;
  const write = async (request: { body?: unknown }, reply: { code(status: number): unknown }) => {
    await insert(typeof request.body === 'string' ? request.body : '{}');
    reply.code(201);
    return { sessionId: 'floor', version: ++version, head: version, eventIds: ['00000000-0000-4000-8000-000000000000'] };
  };
  app.post('/*', write);
  app.put('/*', write);
  app.get('/*', async () => readAnswer);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    store,
    description:
      store === 'postgres'
        ? `durable floor: Fastify, one INSERT of the body (PostgreSQL, pool ${POOL_SIZE}, synchronous_commit on), answer 201; no decision, validation or authentication`
        : 'durable floor: Fastify, one INSERT of the body (SQLite WAL synchronous=FULL), answer 201; no decision, validation or authentication',
    async close() {
      await app.close();
      await close();
    },
  };
}
