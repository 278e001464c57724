import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Wraps and unwraps data keys. The default keeps one master key (REWIND_MASTER_KEY, or a key
 * file); a KMS plugs in behind the same two calls, so master keys never leave it.
 */
export interface KeyProvider {
  /** The data key encrypted for storage; `context` (the key's id) is bound to it. */
  wrap(dataKey: Buffer, context: string): Promise<string>;
  unwrap(wrapped: string, context: string): Promise<Buffer>;
}

/** Why no master key could be had, and what to do. */
export class MasterKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MasterKeyError';
  }
}

/** AES-256-GCM key wrapping under a 32-byte master key held in this process. */
export class MasterKeyProvider implements KeyProvider {
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new MasterKeyError(`A master key must be 32 bytes (got ${masterKey.length}).`);
  }

  async wrap(dataKey: Buffer, context: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv).setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return `mk1:${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url')}`;
  }

  async unwrap(wrapped: string, context: string): Promise<Buffer> {
    if (!wrapped.startsWith('mk1:')) throw new MasterKeyError(`Data key ${context} was not wrapped by a master key of this kind.`);
    const bytes = Buffer.from(wrapped.slice(4), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, bytes.subarray(0, 12)).setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
    } catch {
      throw new MasterKeyError(
        `Data key ${context} cannot be unwrapped with this master key: REWIND_MASTER_KEY (or the key file) is not the one the data was written with.`,
      );
    }
  }
}

const parseKey = (text: string, where: string): Buffer => {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new MasterKeyError(`${where} must hold 32 bytes as 64 hex digits or base64 (e.g. \`openssl rand -hex 32\`).`);
  return key;
};

/** REWIND_MASTER_KEY's value as the key's 32 bytes (64 hex digits or base64), or a MasterKeyError saying what is wrong. */
export const parseMasterKey = (text: string): Buffer => parseKey(text, 'REWIND_MASTER_KEY');

/**
 * The master key: `key` (REWIND_MASTER_KEY) when given, else the key in `file`, which is
 * created with a random key, readable by its owner only, when it does not exist yet (the
 * embedded mode). Keep that file with backups of the data and apart from them: without it,
 * encrypted fields cannot be read back.
 */
export function loadMasterKey(options: { key?: string | undefined; file: string }): Buffer {
  if (options.key) return parseMasterKey(options.key);
  const { file } = options;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    chmodSync(file, 0o600);
  }
  return parseKey(readFileSync(file, 'utf8'), `The master key file ${file}`);
}
