/**
 * The memory index's SQL on PostgreSQL (tables of memory migration 2), over the quoted schema `s`.
 * A statement about one model's items takes its space as `$1`; a shred's covers every model's.
 */
export function indexSql(s: string) {
  const items = `${s}.memory_items`;
  const codes = `${s}.memory_codes`;
  const columns = `seq, id, tenant_id, session_id, event_id, version, global_position, role, occurred_at, chunk, text, memory_key, vector`;
  // One row per item of the batch: each column an array parameter ($2…$14), the words made from searchTokens' words by PostgreSQL.
  const batch = `
    SELECT $1::text, u.id, u.tenant_id, u.session_id, u.event_id, u.version, u.global_position, u.role, u.occurred_at, u.chunk, u.text, u.memory_key,
           u.context,
           setweight(to_tsvector('english', u.own_words), 'A') || setweight(to_tsvector('english', u.context_words), 'B'),
           u.vector
      FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::text[], $9::text[], $10::int[], $11::text[],
                  $12::text[], $13::text[], $14::text[], $15::text[], $16::bytea[])
        AS u(id, tenant_id, session_id, event_id, version, global_position, role, occurred_at, chunk, text, memory_key, context, own_words, context_words, vector)`;
  const insertColumns = `(space, id, tenant_id, session_id, event_id, version, global_position, role, occurred_at, chunk, text, memory_key, context, words, vector)`;
  return {
    /** Writes items with their vectors; an item already there (by id) is replaced. */
    upsertItems: `
      INSERT INTO ${items} ${insertColumns} ${batch}
      ON CONFLICT (space, id) DO UPDATE SET
        tenant_id = excluded.tenant_id, session_id = excluded.session_id, event_id = excluded.event_id, version = excluded.version,
        global_position = excluded.global_position, role = excluded.role, occurred_at = excluded.occurred_at, chunk = excluded.chunk,
        text = excluded.text, memory_key = excluded.memory_key, context = NULL, words = excluded.words, vector = excluded.vector
      RETURNING seq, id, tenant_id, session_id`,
    /** Stage 1: items without vectors; one already there is left as it is. */
    admitItems: `INSERT INTO ${items} ${insertColumns} ${batch} ON CONFLICT (space, id) DO NOTHING RETURNING seq`,
    /** Stage 2: vectors for items still awaiting one (an item shredded or given one meanwhile is left alone). */
    attachVectors: `
      UPDATE ${items} i SET vector = u.vector, context = NULL
        FROM unnest($2::text[], $3::bytea[]) AS u(id, vector)
       WHERE i.space = $1 AND i.id = u.id AND i.vector IS NULL
      RETURNING i.seq, i.id, i.tenant_id, i.session_id`,
    /** Codes of items just given their vectors (replacing an item's code when it was re-written). */
    upsertCodes: `
      INSERT INTO ${codes} (seq, space, tenant_id, session_id, code)
      SELECT u.seq, $1, u.tenant_id, u.session_id, u.code FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bytea[]) AS u(seq, tenant_id, session_id, code)
      ON CONFLICT (seq) DO UPDATE SET tenant_id = excluded.tenant_id, session_id = excluded.session_id, code = excluded.code,
        stamp = nextval('${s}.memory_code_stamps')`,
    /** Stage 2's work, newest first (memory_items_pending read backwards): under a backlog, what was just written is embedded first. */
    pendingItems: `SELECT ${columns}, context FROM ${items} WHERE space = $1 AND vector IS NULL ORDER BY seq DESC LIMIT $2`,
    pendingVectors: `
      SELECT count(*)::int AS n,
             (SELECT global_position FROM ${items} WHERE space = $1 AND vector IS NULL ORDER BY seq LIMIT 1)::bigint AS oldest
        FROM ${items} WHERE space = $1 AND vector IS NULL`,
    /**
     * The codes of a scope stamped after `$3`, with the removals counter (one row with NULLs when none is
     * new). One statement per scope kind: an `OR` on the session would keep the planner from its index.
     */
    codesOfTenant: `
      SELECT r.n AS removals, c.seq, c.code, c.stamp FROM ${s}.memory_code_removals r
        LEFT JOIN ${codes} c ON c.space = $1 AND c.tenant_id = $2 AND c.stamp > $3`,
    codesOfSession: `
      SELECT r.n AS removals, c.seq, c.code, c.stamp FROM ${s}.memory_code_removals r
        LEFT JOIN ${codes} c ON c.space = $1 AND c.tenant_id = $2 AND c.session_id = $4 AND c.stamp > $3`,
    /** The candidates' rows (the prefilter's), re-ranked by exact cosine in the caller. */
    rowsBySeq: `SELECT ${columns} FROM ${items} WHERE seq = ANY($1::bigint[])`,
    /** Each word's lexemes, as the words column reduced them (english: stemmed; stop words give none). */
    lexemesOf: `SELECT w AS word, l AS lexeme FROM unnest($1::text[]) AS w, unnest(tsvector_to_array(to_tsvector('english', w))) AS l`,
    /** Items of the model holding the lexeme (`$2`, a tsquery), counted up to `$3` (beyond it the word is too common to search). */
    documentFrequency: `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${items} WHERE space = $1 AND words @@ $2::tsquery LIMIT $3) m`,
    /** The mean number of lexemes of an item, over a sample (BM25's length normalization). */
    meanLength: `SELECT coalesce(avg(length(words)), 0)::float8 AS mean FROM (SELECT words FROM ${items} WHERE space = $1 LIMIT 2000) s`,
    /**
     * BM25 over the matches of `$4` (a tsquery of the kept lexemes) in the scope: each kept lexeme
     * (`$5`, idf `$6`) weighs by its occurrences, the item's own words at 1 and its previous turn's
     * at `$7` (FTS5's column weights), over the item's length in lexemes against the mean `$8`.
     */
    rankText: `
      WITH q AS (SELECT * FROM unnest($5::text[], $6::float8[]) AS q(lexeme, idf)),
      m AS (SELECT seq, words FROM ${items} WHERE space = $1 AND tenant_id = $2 AND ($3::text IS NULL OR session_id = $3) AND words @@ $4::tsquery),
      ranked AS (
        SELECT m.seq, sum(q.idf * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * length(m.words) / $8::float8))) AS score
          FROM m CROSS JOIN LATERAL unnest(m.words) AS u JOIN q ON q.lexeme = u.lexeme
          CROSS JOIN LATERAL (SELECT sum(CASE w WHEN 'A' THEN 1 ELSE $7::float8 END) AS tf FROM unnest(u.weights) AS w) t
         GROUP BY m.seq ORDER BY score DESC, m.seq LIMIT $9)
      SELECT ${columns.replace(/(\w+)/g, 'i.$1')}, r.score FROM ranked r JOIN ${items} i USING (seq) ORDER BY r.score DESC, r.seq`,
    deleteInSpace: `DELETE FROM ${items} WHERE space = $1 AND tenant_id = $2 AND ($3::text IS NULL OR session_id = $3)`,
    /** A shred: every model's items of the scope (their codes go with them: ON DELETE CASCADE). */
    shred: `DELETE FROM ${items} WHERE tenant_id = $1 AND ($2::text IS NULL OR session_id = $2)`,
    countAll: `SELECT count(*)::int AS n FROM ${items} WHERE space = $1`,
    countTenant: `SELECT count(*)::int AS n FROM ${items} WHERE space = $1 AND tenant_id = $2`,
    countSession: `SELECT count(*)::int AS n FROM ${items} WHERE space = $1 AND tenant_id = $2 AND session_id = $3`,
    listItems: `SELECT id, text, global_position FROM ${items} WHERE space = $1 ORDER BY id`,
    vacuum: `VACUUM ${items}, ${codes}`,
  };
}

export type IndexSql = ReturnType<typeof indexSql>;
