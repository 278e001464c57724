import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { SigningKeys, signingKeysProvider } from './signing-key-store.provider';
import { SigningKeysController } from './signing-keys.controller';

/** The admin routes for Kafka signing keys (/v1/signing-keys). */
@Module({ controllers: [SigningKeysController], providers: [signingKeysProvider] })
export class SigningKeysModule implements OnApplicationShutdown {
  constructor(private readonly keys: SigningKeys) {}

  async onApplicationShutdown(): Promise<void> {
    await this.keys.close();
  }
}
