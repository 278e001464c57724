import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrations } from '.';

/**
 * A released migration is frozen: a database that applied it never runs it again, so an edit
 * would leave old and new databases with different schemas. These are the SHA-256 digests of
 * the SQL each migration generates for the default schema; a change to the schema is a new
 * migration (and a new line here), never a new digest for an old one.
 */
const RELEASED: Record<number, { name: string; sha256: string }> = {
  1: { name: 'event store tables and append function', sha256: '858abb28e0c93084bf45ff425f23313f3afeaac7590d356f976813c1c3bb0c7a' },
  2: {
    name: 'compact events rows: stream key, uuid event ids, fixed-width columns first',
    sha256: '7fa3dd6ed9a5b50a3a1af357432b6c8333fa039cbb316f1a03bed956a6a24e0a',
  },
  3: { name: 'group commit: several appends in one transaction', sha256: '059158fae7b997dba6ba7025a46be94d3538320c36ee5f2878596440321faca2' },
  4: { name: 'snapshot segments', sha256: '87649099b74f2f36dc718d97ca21743d5c5b2bf9ae0d78cf1668a0b127bb267a' },
  5: { name: 'event seals', sha256: 'ad0820a997cbb6bf2a64eeb0695269661ad98971fabf430d94be16951cce2bbe' },
  6: { name: 'deflated snapshots', sha256: '2cf0d3dfcf5fa8eddf11d1f53b5108640f54bd7a180f8b59a188fa85b2cebd08' },
  7: { name: 'event type codes', sha256: '2b2c7058f5a337721bf10e82cb9ccd9d3311746893bedcb4f8a2688b1b1b7815' },
  8: { name: 'audit links written with the events', sha256: '31fa98281bc0f0f8aa5ff1a61335beff78cf341d87e1c7f5c6cb9faeddb04e7b' },
  9: { name: 'snapshot seal keys', sha256: '92edea58fd4bb4d0ac2b7150c6d35b81f487dc9a4562bd8a7c10fd25045ad024' },
};

describe('PostgreSQL event store migrations', () => {
  it('are numbered 1, 2, 3, ... in order', () => {
    expect(migrations('"rewind"').map((m) => m.version)).toEqual(migrations('"rewind"').map((_, i) => i + 1));
  });

  it('released migrations generate exactly the SQL they were released with', () => {
    for (const m of migrations('"rewind"')) {
      const released = RELEASED[m.version];
      if (!released) continue;
      expect({ version: m.version, name: m.name, sha256: createHash('sha256').update(m.sql).digest('hex') }).toEqual({ version: m.version, ...released });
    }
  });

  it('put the schema name wherever they name an object', () => {
    for (const m of migrations('"some_schema"')) {
      expect(m.sql).not.toContain('"rewind"');
      expect(m.sql).toContain('"some_schema".');
    }
  });
});
