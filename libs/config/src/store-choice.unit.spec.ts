import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './rewind-config';

describe('REWIND_STORE=eventstoredb', () => {
  it('reads EVENTSTOREDB_URL and the namespace, defaulting to rewind', () => {
    expect(loadConfig({ REWIND_STORE: 'eventstoredb', EVENTSTOREDB_URL: 'esdb://127.0.0.1:2113?tls=false' })).toMatchObject({
      store: 'eventstoredb',
      eventStoreDbUrl: 'esdb://127.0.0.1:2113?tls=false',
      eventStoreDbNamespace: 'rewind',
    });
    expect(loadConfig({ REWIND_STORE: 'eventstoredb', EVENTSTOREDB_URL: 'kurrentdb+discover://db:2113', REWIND_ESDB_NAMESPACE: 'team-a' })).toMatchObject({
      eventStoreDbNamespace: 'team-a',
    });
  });

  it.each([
    [{ REWIND_STORE: 'eventstoredb' }, /REWIND_STORE=eventstoredb needs EVENTSTOREDB_URL, e\.g\. EVENTSTOREDB_URL=esdb:\/\/127\.0\.0\.1:2113\?tls=false/],
    [
      { REWIND_STORE: 'eventstoredb', EVENTSTOREDB_URL: 'http://127.0.0.1:2113' },
      /EVENTSTOREDB_URL="http:\/\/127\.0\.0\.1:2113" is not valid: use an EventStoreDB connection string/,
    ],
    [{ EVENTSTOREDB_URL: 'esdb:// spaced' }, /EVENTSTOREDB_URL=".*" is not valid/],
    [{ REWIND_STORE: 'eventstoredb', EVENTSTOREDB_URL: 'esdb://h:2113', REWIND_ESDB_NAMESPACE: 'Team/A' }, /REWIND_ESDB_NAMESPACE="Team\/A" is not valid/],
    [{ REWIND_STORE: 'kurrent' }, /REWIND_STORE="kurrent" is not valid.*eventstoredb/],
  ])('stops the start with a message naming the variable: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
