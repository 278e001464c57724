import type { Pool } from 'pg';
import type { Statements } from './statements';

/**
 * The event_types table (migration 7) as this process knows it: events rows carry a type's
 * smallint code, and the name is looked up here. Codes never change once given, so what is
 * known stays true; a code another process registered since is learnt by reading the table again.
 */
export class EventTypeCodes {
  private readonly codes = new Map<string, number>();
  private readonly names = new Map<number, string>();

  constructor(
    private readonly pool: Pool,
    private readonly sql: Statements,
  ) {}

  /** Whether every one of `types` has a known code (appends need no round trip then). */
  knowsAll(types: Iterable<string>): boolean {
    for (const type of types) if (!this.codes.has(type)) return false;
    return true;
  }

  /** Registers the names this process has no code for (one round trip). */
  async register(types: Iterable<string>): Promise<void> {
    const unknown = [...new Set(types)].filter((type) => !this.codes.has(type));
    if (unknown.length === 0) return;
    const result = await this.pool.query<[string, number]>({ ...this.sql.registerEventTypes, rowMode: 'array', values: [unknown] });
    for (const [name, code] of result.rows) this.learn(name, code);
  }

  /** The code of a registered name (call `register` first). */
  code(type: string): number {
    const code = this.codes.get(type);
    if (code === undefined) throw new Error(`Event type "${type}" has no code yet: register it first.`);
    return code;
  }

  /** Reads the table again when one of `codes` (null: a row that stores its name) is unknown here. */
  async learnCodes(codes: Iterable<number | null>): Promise<void> {
    for (const code of codes) {
      if (code === null || this.names.has(code)) continue;
      const result = await this.pool.query<[string, number]>({ ...this.sql.eventTypes, rowMode: 'array' });
      for (const [name, known] of result.rows) this.learn(name, known);
      return;
    }
  }

  /** The type of a row: its name column (rows from before migration 7), else the name of its code. */
  typeOf(name: string | null, code: number | null): string {
    if (name !== null) return name;
    const known = this.names.get(code!);
    if (known === undefined) throw new Error(`Event type code ${code} is not in event_types.`);
    return known;
  }

  private learn(name: string, code: number): void {
    this.codes.set(name, code);
    this.names.set(code, name);
  }
}
