import { FieldEncryption, loadMasterKey, MasterKeyProvider, type DataKeyStore } from '@rewind/tenancy';
import type { CommandContext } from '../command';

/** Field encryption with the configured master key; no key cache (a CLI command reads once). */
export function cliFieldEncryption(keys: DataKeyStore, context: CommandContext): FieldEncryption {
  return new FieldEncryption(keys, new MasterKeyProvider(loadMasterKey({ key: context.config.masterKey, file: context.config.masterKeyFile })), 0);
}
