import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EnvReader } from './env-reader';
import { ConfigError, loadConfig } from './rewind-config';

const reader = (env: Record<string, string>) => new EnvReader(env, (message) => new ConfigError(message));

describe('EnvReader', () => {
  it('takes a whole number within its range and refuses anything else, naming the variable, its value and the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 1005 }), (n) => {
        const read = () => reader({ N: String(n) }).integer('N', 20, 1, 1000);
        if (n >= 1 && n <= 1000) expect(read()).toBe(n);
        else expect(read).toThrow(new ConfigError(`N="${n}" is not valid: expected a whole number from 1 to 1000 (default 20).`));
      }),
    );
    expect(() => reader({ N: '2.5' }).integer('N', 20, 1, 1000)).toThrow(ConfigError);
    expect(() => reader({ N: 'ten' }).integer('N', 20, 1, 1000)).toThrow('N="ten" is not valid');
  });

  it('gives the default for an unset or empty variable', () => {
    expect(reader({}).integer('N', 20, 1, 1000)).toBe(20);
    expect(reader({ N: '' }).oneOf('N', ['a', 'b'] as const, 'b')).toBe('b');
    expect(reader({}).boolean('B', true)).toBe(true);
  });

  it('reads choices, on/off and booleans', () => {
    expect(reader({ S: 'postgres' }).oneOf('S', ['sqlite', 'postgres'] as const, 'sqlite')).toBe('postgres');
    expect(() => reader({ S: 'mysql' }).oneOf('S', ['sqlite', 'postgres'] as const, 'sqlite')).toThrow(
      'S="mysql" is not valid: expected one of sqlite, postgres (default sqlite).',
    );
    expect(reader({ F: 'off' }).onOff('F', 'on')).toBe(false);
    expect(reader({ B: 'YES' }).boolean('B', false)).toBe(true);
    expect(reader({ B: '0' }).boolean('B', true)).toBe(false);
    expect(() => reader({ B: 'maybe' }).boolean('B', true)).toThrow('B="maybe" is not valid: expected true or false (default true).');
  });

  it('keeps the messages loadConfig always gave', () => {
    expect(() => loadConfig({ REWIND_PG_POOL_SIZE: '0' })).toThrow(
      'REWIND_PG_POOL_SIZE="0" is not valid: expected a whole number from 1 to 1000 (default 20).',
    );
    expect(() => loadConfig({ REWIND_LOG_LEVEL: 'verbose' })).toThrow(
      'REWIND_LOG_LEVEL="verbose" is not valid: expected one of error, warn, log, debug (default log).',
    );
  });

  it('sizes the read model pool apart from the event store pool (the connection budget): by default REWIND_PG_POOL_SIZE, from 2 to 10', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (n) => {
        expect(loadConfig({ REWIND_PG_POOL_SIZE: String(n) })).toMatchObject({ pgPoolSize: n, pgReadModelPoolSize: Math.max(2, Math.min(n, 10)) });
      }),
    );
    expect(loadConfig({ REWIND_PG_POOL_SIZE: '5', REWIND_PG_READ_MODEL_POOL_SIZE: '3' })).toMatchObject({ pgPoolSize: 5, pgReadModelPoolSize: 3 });
    expect(() => loadConfig({ REWIND_PG_READ_MODEL_POOL_SIZE: '1' })).toThrow(
      'REWIND_PG_READ_MODEL_POOL_SIZE="1" is not valid: expected a whole number from 2 to 1000 (default 10).',
    );
  });
});
