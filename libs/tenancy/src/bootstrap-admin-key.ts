import type { ApiKeyStore } from './api-key-store';

export const DEFAULT_TENANT = 'default';

/**
 * Makes sure the deployment's key exists. With `configuredKey` (REWIND_ADMIN_KEY) that key is
 * the operator key and none is generated; otherwise, on first start only, a key is generated
 * and returned so that it can be shown once. A key already stored keeps its scopes: an `admin`
 * key from before operators existed stays tenant `default`'s admin until promoted
 * (docs/operations/security.md, "Roles").
 */
export async function ensureAdminKey(store: ApiKeyStore, configuredKey?: string): Promise<{ generated: string | null }> {
  if (configuredKey) {
    await store.create({ tenantId: DEFAULT_TENANT, name: 'admin (REWIND_ADMIN_KEY)', scopes: ['operator'], plaintext: configuredKey });
    return { generated: null };
  }
  if ((await store.count()) > 0) return { generated: null };
  const { key } = await store.create({ tenantId: DEFAULT_TENANT, name: 'operator (generated on first start)', scopes: ['operator'] });
  return { generated: key };
}
