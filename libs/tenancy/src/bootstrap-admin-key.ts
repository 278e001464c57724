import type { ApiKeyRecord, ApiKeyStore } from './api-key-store';

export const DEFAULT_TENANT = 'default';

/**
 * Makes sure the deployment's key exists. With `configuredKey` (REWIND_ADMIN_KEY) that key is
 * the operator key and none is generated; otherwise, on first start only, a key is generated
 * and returned so that it can be shown once. A key already stored keeps its scopes: an `admin`
 * key from before operators existed stays tenant `default`'s admin until promoted
 * (docs/operations/security.md, "Roles").
 */
export async function ensureAdminKey(store: ApiKeyStore, configuredKey?: string): Promise<{ generated: string | null; refused: string | null }> {
  if (configuredKey) {
    const known = await store.lookup(configuredKey);
    const why = known ? retiredBecause(known.record, known.replaced) : null;
    if (why) {
      return {
        generated: null,
        refused:
          `REWIND_ADMIN_KEY is refused and the API starts without it: it is a secret of API key ${known!.record.keyId} that ${why}, and a retired secret ` +
          "never becomes an operator key again. Put that key's current secret in REWIND_ADMIN_KEY, or a new operator key " +
          '(`rewind keys create --tenant default --scopes operator`), or leave REWIND_ADMIN_KEY unset.',
      };
    }
    if (!known) await store.create({ tenantId: DEFAULT_TENANT, name: 'admin (REWIND_ADMIN_KEY)', scopes: ['operator'], plaintext: configuredKey });
    return { generated: null, refused: null };
  }
  if ((await store.count()) > 0) return { generated: null, refused: null };
  const { key } = await store.create({ tenantId: DEFAULT_TENANT, name: 'operator (generated on first start)', scopes: ['operator'] });
  return { generated: key, refused: null };
}

/** Why a known secret may not be taken up again (null: it is the key's live, current secret). */
function retiredBecause(record: ApiKeyRecord, replaced: boolean): string | null {
  if (record.revokedAt !== null) return `was revoked on ${record.revokedAt}`;
  if (replaced) return `a rotation replaced${record.rotatedAt ? ` (last rotated on ${record.rotatedAt})` : ''}`;
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.now()) return `expired on ${record.expiresAt}`;
  return null;
}
