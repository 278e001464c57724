import {
  checkSigningGrace,
  newSecretText,
  newSigningSecret,
  usableNow,
  withoutSecret,
  withReplaced,
  type KafkaSigningSecretStore,
  type ReplacedSecret,
  type SigningSecret,
  type SigningSecretRecord,
} from './signing-secret-store';

interface Entry {
  key: Omit<SigningSecret, 'previousSecrets'>;
  /** Every replaced secret with the end of its own grace. */
  replaced: ReplacedSecret[];
}

export class InMemoryKafkaSigningSecretStore implements KafkaSigningSecretStore {
  private readonly keys = new Map<string, Entry>();

  async find(keyId: string): Promise<SigningSecret | null> {
    const entry = this.keys.get(keyId);
    return entry ? usableNow({ ...entry.key }, entry.replaced) : null;
  }

  async rotate(keyId: string, graceSeconds: number): Promise<SigningSecret | null> {
    checkSigningGrace(graceSeconds);
    const entry = this.keys.get(keyId);
    if (!entry || entry.key.revokedAt !== null) return null;
    const now = Date.now();
    // The replaced secret keeps its own grace, beside those of earlier rotations still running; ended ones go.
    entry.replaced = [
      ...entry.replaced.filter((r) => Date.parse(r.validUntil) > now),
      { secret: entry.key.secret, validUntil: new Date(now + graceSeconds * 1000).toISOString() },
    ];
    entry.key.previousSecretValidUntil = entry.replaced
      .map((r) => r.validUntil)
      .sort()
      .at(-1)!;
    entry.key.secret = newSecretText();
    return withReplaced({ ...entry.key }, entry.replaced, now);
  }

  async create(input: { tenantId: string; name?: string; secret?: string; expiresAt?: string | null }): Promise<SigningSecret> {
    const { previousSecrets: _none, ...key } = newSigningSecret(input);
    this.keys.set(key.keyId, { key, replaced: [] });
    return withReplaced({ ...key }, []);
  }

  async revoke(keyId: string): Promise<boolean> {
    const entry = this.keys.get(keyId);
    if (!entry) return false;
    entry.key.revokedAt ??= new Date().toISOString();
    return true;
  }

  async list(tenantId?: string): Promise<SigningSecretRecord[]> {
    return [...this.keys.values()]
      .filter((e) => tenantId === undefined || e.key.tenantId === tenantId)
      .map((e) => withoutSecret(withReplaced(e.key, e.replaced)));
  }

  async close(): Promise<void> {}
}
