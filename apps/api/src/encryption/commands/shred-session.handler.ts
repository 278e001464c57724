import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { sessionStreamId } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import type { FieldEncryption } from '@rewind/tenancy';
import { ApiError } from '../../common/api-error';
import { EVENT_STORE } from '../../infrastructure/tokens';
import { FIELD_ENCRYPTION } from '../tokens';
import { ShredSessionCommand } from './shred-session.command';

@CommandHandler(ShredSessionCommand)
export class ShredSessionHandler implements ICommandHandler<ShredSessionCommand, { sessionId: string; keysDestroyed: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(FIELD_ENCRYPTION) private readonly encryption: FieldEncryption,
  ) {}

  async execute({ caller, sessionId }: ShredSessionCommand) {
    if ((await this.store.streamVersion(sessionStreamId(caller.tenantId, sessionId))) === 0) {
      throw new ApiError(404, 'session_not_found', `No session "${sessionId}" for this tenant.`);
    }
    return { sessionId, keysDestroyed: await this.encryption.shred(caller.tenantId, sessionId, caller.actor) };
  }
}
