import type { MemoryMigration } from './memory-migration';

/**
 * Memory migration 2 (frozen): the memory index shared by every process of a PostgreSQL
 * deployment (REWIND_STORE=postgres), on stock PostgreSQL (no extension). Every embedding model's
 * items live in one table, told apart by `space` (the model's id and dimensions): a migration's SQL
 * is fixed, so the per-model tables of the SQLite index become a column here.
 */
export const memoryMigration2 = (s: string): MemoryMigration => ({
  version: 2,
  name: 'memory index',
  sql: `
-- One row per memory item and model. words: the item's own words at weight A and its previous
-- turn's at weight B (english configuration: stemmed), searched through the GIN index.
-- vector: float32 little-endian, NULL while the item awaits it (two-stage indexing), when
-- context keeps the previous turn it is embedded with.
CREATE TABLE ${s}.memory_items (
  seq             bigint   GENERATED ALWAYS AS IDENTITY,
  space           text     NOT NULL,
  id              text     NOT NULL,
  tenant_id       text     NOT NULL,
  session_id      text     NOT NULL,
  event_id        text     NOT NULL,
  version         integer  NOT NULL,
  global_position bigint   NOT NULL,
  role            text     NOT NULL,
  occurred_at     text     NOT NULL,
  chunk           integer  NOT NULL,
  text            text     NOT NULL,
  memory_key      text,
  context         text,
  words           tsvector NOT NULL,
  vector          bytea,
  CONSTRAINT memory_items_pk PRIMARY KEY (seq),
  CONSTRAINT memory_items_id_uq UNIQUE (space, id)
);
CREATE INDEX memory_items_scope ON ${s}.memory_items (space, tenant_id, session_id);
CREATE INDEX memory_items_words ON ${s}.memory_items USING gin (words);
-- Stage 2's backlog, oldest first.
CREATE INDEX memory_items_pending ON ${s}.memory_items (space, seq) WHERE vector IS NULL;

-- 1-bit codes (sign bits, packed 8 to a byte) of the items' vectors, in a narrow table of their own:
-- each process holds a scope's codes in memory and scans them (as the SQLite index does), reading only
-- what is new since it last looked (stamp, from a sequence: an updated code gets a new one).
CREATE SEQUENCE ${s}.memory_code_stamps;
CREATE TABLE ${s}.memory_codes (
  seq        bigint NOT NULL,
  space      text   NOT NULL,
  tenant_id  text   NOT NULL,
  session_id text   NOT NULL,
  code       bytea  NOT NULL,
  stamp      bigint NOT NULL DEFAULT nextval('${s}.memory_code_stamps'),
  CONSTRAINT memory_codes_pk PRIMARY KEY (seq),
  CONSTRAINT memory_codes_item_fk FOREIGN KEY (seq) REFERENCES ${s}.memory_items (seq) ON DELETE CASCADE
);
CREATE INDEX memory_codes_tenant ON ${s}.memory_codes (space, tenant_id, stamp);
CREATE INDEX memory_codes_session ON ${s}.memory_codes (space, tenant_id, session_id, stamp);

-- Counts statements that removed codes (a shred, a deletion, an item replaced): a process holding codes in
-- memory reads them all again when it changes.
CREATE TABLE ${s}.memory_code_removals (n bigint NOT NULL);
INSERT INTO ${s}.memory_code_removals (n) VALUES (0);
CREATE FUNCTION ${s}.memory_codes_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ${s}.memory_code_removals SET n = n + 1 WHERE EXISTS (SELECT 1 FROM gone);
  RETURN NULL;
END $$;
CREATE TRIGGER memory_codes_removed AFTER DELETE ON ${s}.memory_codes
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ${s}.memory_codes_removed();
`,
});
