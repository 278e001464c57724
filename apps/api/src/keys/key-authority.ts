import type { ApiKeyRecord, ApiKeyScope, AuthenticatedKey } from '@rewind/tenancy';
import { ApiError } from '../common/api-error';

const isOperator = (key: AuthenticatedKey) => key.scopes.includes('operator');

function operatorOnly(key: AuthenticatedKey, what: string): ApiError {
  return new ApiError(
    403,
    'insufficient_scope',
    `API key ${key.keyId} is tenant "${key.tenantId}"'s admin: ${what} needs the deployment operator's key (scope "operator").`,
    [{ field: 'authorization', message: 'needs scope "operator"' }],
  );
}

/**
 * Who may manage which keys: the deployment operator any tenant's, a tenant's admin only its
 * own tenant's and never an operator key. Another tenant's key answers 404, as its anything does.
 */
export const keyAuthority = {
  /** The tenant a new key may be created in, with these scopes. */
  create(key: AuthenticatedKey, tenantId: string, scopes: readonly ApiKeyScope[]): void {
    if (isOperator(key)) return;
    if (tenantId !== key.tenantId) throw operatorOnly(key, `creating a key for tenant "${tenantId}"`);
    if (scopes.includes('operator')) throw operatorOnly(key, 'creating an operator key');
  },

  /** The tenant whose keys may be listed (undefined: every tenant's). */
  list(key: AuthenticatedKey, tenantId: string | undefined): void {
    if (isOperator(key) || tenantId === key.tenantId) return;
    throw operatorOnly(key, tenantId === undefined ? "listing every tenant's keys" : `listing tenant "${tenantId}"'s keys`);
  },

  /** The listed keys a caller may see: a tenant's admin never sees the operator's keys, even those kept under its tenant. */
  visible(key: AuthenticatedKey, records: readonly ApiKeyRecord[]): ApiKeyRecord[] {
    return isOperator(key) ? [...records] : records.filter((record) => !record.scopes.includes('operator'));
  },

  /** Before revoking, rotating or expiring `target` (null: no such key). */
  change(key: AuthenticatedKey, keyId: string, target: ApiKeyRecord | null): void {
    if (target && isOperator(key)) return;
    if (!target || target.tenantId !== key.tenantId) {
      throw new ApiError(404, 'api_key_not_found', `No API key "${keyId}": list them with \`rewind keys list\` or GET /v1/keys.`);
    }
    if (target.scopes.includes('operator')) throw operatorOnly(key, `changing operator key ${keyId}`);
  },
};
