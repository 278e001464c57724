import { newSigningSecret, withoutSecret, type KafkaSigningSecretStore, type SigningSecret, type SigningSecretRecord } from './signing-secret-store';

export class InMemoryKafkaSigningSecretStore implements KafkaSigningSecretStore {
  private readonly keys = new Map<string, SigningSecret>();

  async find(keyId: string): Promise<SigningSecret | null> {
    const key = this.keys.get(keyId);
    return key && key.revokedAt === null ? { ...key } : null;
  }

  async create(input: { tenantId: string; name?: string; secret?: string }): Promise<SigningSecret> {
    const key = newSigningSecret(input);
    this.keys.set(key.keyId, key);
    return { ...key };
  }

  async revoke(keyId: string): Promise<boolean> {
    const key = this.keys.get(keyId);
    if (!key) return false;
    key.revokedAt ??= new Date().toISOString();
    return true;
  }

  async list(tenantId?: string): Promise<SigningSecretRecord[]> {
    return [...this.keys.values()].filter((k) => tenantId === undefined || k.tenantId === tenantId).map(withoutSecret);
  }

  async close(): Promise<void> {}
}
