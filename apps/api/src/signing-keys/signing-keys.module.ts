import { Module } from '@nestjs/common';
import { SigningKeysController } from './signing-keys.controller';

/** The admin routes for Kafka signing keys (/v1/signing-keys), over the backend's signing-key store. */
@Module({ controllers: [SigningKeysController] })
export class SigningKeysModule {}
