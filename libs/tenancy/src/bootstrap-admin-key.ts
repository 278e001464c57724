import type { ApiKeyStore } from './api-key-store';

export const DEFAULT_TENANT = 'default';

/**
 * Makes sure an admin key exists. With `configuredKey` (REWIND_ADMIN_KEY) that key is
 * the admin key and none is generated; otherwise, on first start only, a key is
 * generated and returned so that it can be shown once.
 */
export async function ensureAdminKey(store: ApiKeyStore, configuredKey?: string): Promise<{ generated: string | null }> {
  if (configuredKey) {
    await store.create({ tenantId: DEFAULT_TENANT, name: 'admin (REWIND_ADMIN_KEY)', scopes: ['admin'], plaintext: configuredKey });
    return { generated: null };
  }
  if ((await store.count()) > 0) return { generated: null };
  const { key } = await store.create({ tenantId: DEFAULT_TENANT, name: 'admin (generated on first start)', scopes: ['admin'] });
  return { generated: key };
}
