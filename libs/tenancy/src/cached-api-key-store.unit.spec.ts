import { describe, expect, it } from 'vitest';
import { CachedApiKeyStore } from './cached-api-key-store';
import { InMemoryApiKeyStore } from './in-memory-api-key-store';

describe('CachedApiKeyStore', () => {
  it('answers a known key from memory after the first lookup, and never caches an unknown key', async () => {
    const inner = new InMemoryApiKeyStore();
    let lookups = 0;
    const original = inner.authenticate.bind(inner);
    inner.authenticate = async (key: string) => {
      lookups++;
      return original(key);
    };
    const store = new CachedApiKeyStore(inner, 60_000);
    const { key } = await store.create({ tenantId: 'acme', name: 'agent', role: 'agent' });
    expect((await store.authenticate(key))?.tenantId).toBe('acme');
    expect((await store.authenticate(key))?.tenantId).toBe('acme');
    expect(lookups).toBe(1);
    expect(await store.authenticate('rwd_unknown')).toBeNull();
    expect(await store.authenticate('rwd_unknown')).toBeNull();
    expect(lookups).toBe(3);
  });

  it('looks the key up again once the entry expired', async () => {
    const inner = new InMemoryApiKeyStore();
    const store = new CachedApiKeyStore(inner, 0);
    const { key } = await store.create({ tenantId: 'acme', name: 'agent', role: 'agent' });
    await store.authenticate(key);
    let lookups = 0;
    const original = inner.authenticate.bind(inner);
    inner.authenticate = async (k: string) => {
      lookups++;
      return original(k);
    };
    await store.authenticate(key);
    expect(lookups).toBe(1);
  });
});
