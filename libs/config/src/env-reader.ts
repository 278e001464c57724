import { z } from 'zod';

/**
 * Reads environment variables through zod schemas, for every Rewind process (API, worker,
 * CLI, Kafka settings): unset or empty means the default; a bad value throws the caller's
 * error type with one sentence naming the variable, its value and what it accepts.
 */
export class EnvReader {
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly refuse: (message: string) => Error,
  ) {}

  /** The raw value, or undefined when unset or empty. */
  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    return this.parse(name, fallback, z.coerce.number().int().min(min).max(max), `a whole number from ${min} to ${max}`);
  }

  /** A number, fractions allowed. */
  number(name: string, fallback: number, min: number, max: number): number {
    return this.parse(name, fallback, z.coerce.number().min(min).max(max), `a number from ${min} to ${max}`);
  }

  /** One of `allowed`, in any case (read as lower case). */
  oneOfAnyCase<const T extends readonly [string, ...string[]]>(name: string, allowed: T, fallback: T[number]): T[number] {
    return this.parse(
      name,
      fallback,
      z.preprocess((value) => String(value).toLowerCase(), z.enum(allowed)),
      `one of ${allowed.join(', ')}`,
    );
  }

  oneOf<const T extends readonly [string, ...string[]]>(name: string, allowed: T, fallback: T[number]): T[number] {
    return this.parse(name, fallback, z.enum(allowed), `one of ${allowed.join(', ')}`);
  }

  /** `on` or `off`. */
  onOff(name: string, fallback: 'on' | 'off'): boolean {
    return this.oneOf(name, ['on', 'off'] as const, fallback) === 'on';
  }

  /** true/1/yes/on or false/0/no/off, in any case. */
  boolean(name: string, fallback: boolean): boolean {
    const schema = z
      .string()
      .regex(/^(true|1|yes|on|false|0|no|off)$/i)
      .transform((value) => /^(true|1|yes|on)$/i.test(value));
    return this.parse(name, fallback, schema, 'true or false');
  }

  /** A string matching `pattern`; `expected` says what is accepted, e.g. "use 1-200 letters, digits, ...". */
  matching(name: string, fallback: string, pattern: RegExp, expected: string): string;
  matching(name: string, fallback: undefined, pattern: RegExp, expected: string): string | undefined;
  matching(name: string, fallback: string | undefined, pattern: RegExp, expected: string): string | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!z.string().regex(pattern).safeParse(raw).success) throw this.refuse(`${name}="${raw}" is not valid: ${expected}.`);
    return raw;
  }

  private parse<T>(name: string, fallback: T, schema: z.ZodType<T>, expected: string): T {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw this.refuse(`${name}="${raw}" is not valid: expected ${expected} (default ${String(fallback)}).`);
    return parsed.data;
  }
}
