/**
 * Query plans of Rewind's hot PostgreSQL statements, on data written the way the workloads write
 * it (20-turn sessions through the live path, a 10 001-event session with its snapshots):
 * `EXPLAIN (ANALYZE, BUFFERS)` of each statement as the app prepares it (after 6 executions, so
 * that the plan is the one the prepared statement really uses), and the plans inside the append
 * function (auto_explain with nested statements, sent to the client as notices).
 *
 * Usage: node dist/test/bench/suite/explain.js <run id> <output.md>
 */
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { EVENT_SCHEMA_VERSION } from '@rewind/domain';
import { encodeMetadata, eventDigest } from '@rewind/event-store';
import { PostgresApiKeyStore } from '@rewind/tenancy/postgres';
import { BENCH_TENANT } from './conversation';
import { RewindAdapter } from './peers/rewind';
import { writeInterleaved } from './workloads/w7-storage';

interface Statement {
  title: string;
  text: string;
  values: unknown[];
}

async function explainPrepared(client: Client, name: string, statement: Statement): Promise<string> {
  const types = statement.values.map(() => 'unknown');
  await client.query(`DEALLOCATE ALL`);
  const text = statement.text;
  await client.query(`PREPARE ${name} AS ${text}`).catch(async () => {
    // Parameters whose type PostgreSQL cannot infer: let it infer from the casts in the text.
    await client.query(`PREPARE ${name}(${types.join(', ')}) AS ${text}`);
  });
  const literal = (v: unknown) =>
    v === null
      ? 'NULL'
      : typeof v === 'number'
        ? String(v)
        : Array.isArray(v)
          ? `'${JSON.stringify(v).replace(/^\[/, '{').replace(/\]$/, '}').replace(/'/g, "''")}'`
          : `'${String(v).replace(/'/g, "''")}'`;
  const args = statement.values.map(literal).join(', ');
  for (let i = 0; i < 6; i++) await client.query(`EXECUTE ${name}(${args})`);
  const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${name}(${args})`);
  return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
}

export async function explainHotQueries(run: string): Promise<string> {
  const adapter = await RewindAdapter.open({ run, store: 'postgres' });
  const out: string[] = ['# Plans of Rewind’s hot PostgreSQL statements', ''];
  try {
    const ids = Array.from({ length: 20 }, (_, i) => `x${i}`);
    await writeInterleaved(adapter, ids, 20);
    await adapter.bulkLoad('long', 2000);
    const events = adapter.events as unknown as { pool: import('pg').Pool };
    const keys = await PostgresApiKeyStore.open(events.pool);
    const created = await keys.create({ tenantId: 'default', name: 'bench', role: 'admin' } as Parameters<typeof keys.create>[0]);
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(created.key, 'utf8').digest('hex');
    const stream = adapter.streamId('x7');
    const long = adapter.streamId('long');
    const statements: Statement[] = [
      {
        title: 'readStream: the tail after the snapshot at 100 (W1 restore, 20-turn session)',
        text: `SELECT e.global_position, $1::text AS stream_id, e.stream_version, coalesce(e.event_text, e.event_uuid::text) AS event_id, e.type, e.parent_version, e.data, e.metadata FROM rewind.events e WHERE e.stream_key = (SELECT st.id FROM rewind.streams st WHERE st.stream_id = $1::text) AND e.stream_version >= $2::bigint AND e.stream_version <= $3::bigint ORDER BY e.stream_version LIMIT $4::bigint`,
        values: [stream, 101, Number.MAX_SAFE_INTEGER, null],
      },
      {
        title: 'readStream: a whole 20-turn session (pure replay)',
        text: `SELECT e.global_position, $1::text AS stream_id, e.stream_version, coalesce(e.event_text, e.event_uuid::text) AS event_id, e.type, e.parent_version, e.data, e.metadata FROM rewind.events e WHERE e.stream_key = (SELECT st.id FROM rewind.streams st WHERE st.stream_id = $1::text) AND e.stream_version >= $2::bigint AND e.stream_version <= $3::bigint ORDER BY e.stream_version LIMIT $4::bigint`,
        values: [stream, 1, Number.MAX_SAFE_INTEGER, null],
      },
      {
        title: 'loadSnapshot: 20-turn session (W1)',
        text: `SELECT version, state FROM rewind.snapshots WHERE stream_id = $1::text AND reducer_version = $2::integer AND version <= $3::bigint ORDER BY version DESC LIMIT 1`,
        values: [stream, 1, Number.MAX_SAFE_INTEGER],
      },
      {
        title: 'loadSnapshot: 10 001-event session at version 7 777 (W2)',
        text: `SELECT version, state FROM rewind.snapshots WHERE stream_id = $1::text AND reducer_version = $2::integer AND version <= $3::bigint ORDER BY version DESC LIMIT 1`,
        values: [long, 1, 7777],
      },
      {
        title: 'readStream: the tail 7 701..7 777 (W2)',
        text: `SELECT e.global_position, $1::text AS stream_id, e.stream_version, coalesce(e.event_text, e.event_uuid::text) AS event_id, e.type, e.parent_version, e.data, e.metadata FROM rewind.events e WHERE e.stream_key = (SELECT st.id FROM rewind.streams st WHERE st.stream_id = $1::text) AND e.stream_version >= $2::bigint AND e.stream_version <= $3::bigint ORDER BY e.stream_version LIMIT $4::bigint`,
        values: [long, 7701, 7777, null],
      },
      {
        title: 'streamVersion (before every write, SessionRepository.load)',
        text: `SELECT version FROM rewind.streams WHERE stream_id = $1::text`,
        values: [stream],
      },
      {
        title: 'API key lookup (every HTTP request, PostgresApiKeyStore.authenticate)',
        text: `SELECT key_id, tenant_id, name, role, created_at FROM "rewind".api_keys WHERE hash = $1`,
        values: [hash],
      },
    ];
    const client = new Client({ connectionString: adapter.location.url });
    await client.connect();
    try {
      await client.query('ANALYZE');
      let i = 0;
      for (const statement of statements) {
        out.push(`## ${statement.title}`, '', '```', statement.text.replace(/\s+/g, ' '), '', await explainPrepared(client, `s${i++}`, statement), '```', '');
      }
      // The append function's own statements, through auto_explain.
      const notices: string[] = [];
      client.on('notice', (n) => notices.push(n.message ?? String(n)));
      await client.query(`LOAD 'auto_explain'`);
      for (const setting of [
        'auto_explain.log_min_duration = 0',
        'auto_explain.log_analyze = on',
        'auto_explain.log_buffers = on',
        'auto_explain.log_nested_statements = on',
        'auto_explain.log_timing = on',
        'client_min_messages = log',
      ]) {
        await client.query(`SET ${setting}`);
      }
      const origin = (await client.query<{ xid_origin: string }>('SELECT xid_origin FROM rewind.store_info')).rows[0]!.xid_origin;
      const version = Number((await client.query<{ version: string }>('SELECT version FROM rewind.streams WHERE stream_id = $1', [stream])).rows[0]!.version);
      const metadata = {
        tenantId: BENCH_TENANT,
        sessionId: 'x7',
        commandId: '00000000-0000-4000-8000-000000000001',
        causationId: null,
        correlationId: '00000000-0000-4000-8000-000000000001',
        actor: 'bench',
        occurredAt: new Date().toISOString(),
        schemaVersion: EVENT_SCHEMA_VERSION,
      };
      // Three appends: the first compiles the function in this session; the plans shown are the last one's.
      // The arguments as PostgresEventStore sends them (statements.ts): type codes, metadata in its
      // stored form, and each event's digest (append_events links it into the stream's audit chain).
      for (let k = 0; k < 3; k++) {
        notices.length = 0;
        const eventId = `00000000-0000-4000-8000-0000000000a${k}`;
        const data = JSON.stringify({ key: 'pref-1', value: { turn: 99, likes: 'old town' } });
        const stored = encodeMetadata(metadata, stream);
        await client.query(
          `SELECT o_outcome, o_stream_id, o_first_version, o_last_version FROM rewind.append_events($1::text, $2::bigint, $3::uuid[], $4::text[],
             ARRAY[(SELECT code FROM rewind.event_types WHERE name = $5::text)], $6::bigint[], $7::json[], $8::json[], $9::bigint, $10::text, $11::text, $12::text, 0, $13::bytea[])`,
          [
            stream,
            version + k,
            [eventId],
            [null],
            'MemoryWritten',
            [version + k],
            [data],
            [stored],
            origin,
            null,
            null,
            null,
            [eventDigest(stream, eventId, 'MemoryWritten', version + k, data, stored)],
          ],
        );
      }
      out.push('## append_events (one event), the statements inside the function (auto_explain)', '', '```', ...notices, '```', '');
      await client.query(`SET client_min_messages = notice`);
      await client.query(`SET auto_explain.log_min_duration = -1`);
      const sizes = await client.query<Record<string, string>>(
        `SELECT count(*) AS events,
                round(avg(pg_column_size(e.*))) AS row_bytes,
                round(avg(pg_column_size(e.data))) AS data_bytes,
                round(avg(pg_column_size(e.metadata))) AS metadata_bytes,
                round(avg(coalesce(pg_column_size(e.event_uuid), pg_column_size(e.event_text)) + pg_column_size(e.stream_key))) AS ids_bytes
           FROM rewind.events e JOIN rewind.streams st ON st.id = e.stream_key WHERE st.stream_id LIKE 'session:bench:x%'`,
      );
      const indexes = await client.query<{ name: string; bytes: string }>(
        `SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          WHERE i.indrelid IN ('rewind.events'::regclass, 'rewind.streams'::regclass, 'rewind.snapshots'::regclass) ORDER BY 1`,
      );
      const snapshots = await client.query<{ stream: string; version: string; stored: string; text_bytes: string }>(
        `SELECT stream_id AS stream, version, pg_column_size(state) AS stored, octet_length(state::text) AS text_bytes
           FROM rewind.snapshots WHERE (stream_id = $1 AND version = 100) OR (stream_id = $2 AND version IN (1000, 5000, 10000)) ORDER BY stream_id, version`,
        [stream, long],
      );
      out.push(
        '## Sizes',
        '',
        `Events of the 20-turn sessions (average per event): ${JSON.stringify(sizes.rows[0])}`,
        '',
        `Indexes (after the 20 sessions and the 10 001-event session): ${indexes.rows.map((r) => `${r.name} ${Math.round(Number(r.bytes) / 1024)} KB`).join(', ')}`,
        '',
        'Snapshots (stored = TOAST-compressed size, text = JSON text length):',
        '',
        ...snapshots.rows.map((r) => `- ${r.stream} @ ${r.version}: stored ${r.stored} B, text ${r.text_bytes} B`),
        '',
      );
    } finally {
      await client.end();
    }
  } finally {
    await adapter.close();
  }
  return out.join('\n');
}

if (require.main === module) {
  const [run, output] = process.argv.slice(2);
  explainHotQueries(run ?? 'explain').then(
    (markdown) => {
      if (output) writeFileSync(output, markdown);
      else console.log(markdown);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
