import {
  checkSigningGrace,
  newSecretText,
  newSigningSecret,
  usableNow,
  withoutSecret,
  type KafkaSigningSecretStore,
  type SigningSecret,
  type SigningSecretRecord,
} from './signing-secret-store';

export class InMemoryKafkaSigningSecretStore implements KafkaSigningSecretStore {
  private readonly keys = new Map<string, SigningSecret>();

  async find(keyId: string): Promise<SigningSecret | null> {
    const key = this.keys.get(keyId);
    return key ? usableNow({ ...key }) : null;
  }

  async rotate(keyId: string, graceSeconds: number): Promise<SigningSecret | null> {
    checkSigningGrace(graceSeconds);
    const key = this.keys.get(keyId);
    if (!key || key.revokedAt !== null) return null;
    key.previousSecret = key.secret;
    key.previousSecretValidUntil = new Date(Date.now() + graceSeconds * 1000).toISOString();
    key.secret = newSecretText();
    return { ...key };
  }

  async create(input: { tenantId: string; name?: string; secret?: string; expiresAt?: string | null }): Promise<SigningSecret> {
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
