import type Database from 'better-sqlite3';

/**
 * The event_types table (format 2) as this process knows it: new events rows carry a type's
 * integer code in `type_code` (and '' in `type`), and the name is looked up here. Codes never
 * change once given, so what is known stays true; a code another process registered since is
 * learnt by reading the table again.
 */
export class SqliteEventTypeCodes {
  private readonly codes = new Map<string, number>();
  private readonly names = new Map<number, string>();
  private readonly insert;
  private readonly all;
  private readonly registerTx;

  constructor(db: Database.Database) {
    this.insert = db.prepare<[string]>('INSERT OR IGNORE INTO event_types (name) VALUES (?)');
    this.all = db.prepare<[], { code: number; name: string }>('SELECT code, name FROM event_types');
    this.registerTx = db.transaction((names: string[]) => {
      for (const name of names) this.insert.run(name);
    });
  }

  /**
   * Registers the names this process has no code for, in a transaction of their own: a code
   * must be committed before a row refers to it, whatever becomes of the append.
   */
  register(types: readonly string[]): void {
    const unknown = types.filter((type) => !this.codes.has(type));
    if (unknown.length === 0) return;
    this.registerTx.immediate([...new Set(unknown)]);
    this.reload();
  }

  /** The code of a registered name (call `register` first). */
  code(type: string): number {
    const code = this.codes.get(type);
    if (code === undefined) throw new Error(`Event type "${type}" has no code yet: register it first.`);
    return code;
  }

  /** The type of a row: the name of its code, or its `type` column for rows from before format 2. */
  typeOf(name: string, code: number | null): string {
    if (code === null) return name;
    const known = this.names.get(code);
    if (known !== undefined) return known;
    this.reload();
    const learnt = this.names.get(code);
    if (learnt === undefined) throw new Error(`Event type code ${code} is not in event_types.`);
    return learnt;
  }

  private reload(): void {
    for (const { code, name } of this.all.all()) {
      this.codes.set(name, code);
      this.names.set(code, name);
    }
  }
}
