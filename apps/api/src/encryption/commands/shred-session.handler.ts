import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RecordShreddingCommand, sessionStreamId, type WriteResult } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import { describeShred, shredReportOf, type FieldEncryption } from '@rewind/tenancy';
import type { ShredSessionResult } from './shred-session.command';
import { ApiError } from '../../common/api-error';
import { EVENT_STORE } from '../../infrastructure/tokens';
import { ShredSessionMemoryCommand } from '../../memory/shred-session-memory.command';
import { FIELD_ENCRYPTION } from '../tokens';
import { ShredSessionCommand } from './shred-session.command';

@CommandHandler(ShredSessionCommand)
export class ShredSessionHandler implements ICommandHandler<ShredSessionCommand, ShredSessionResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(FIELD_ENCRYPTION) private readonly encryption: FieldEncryption,
    private readonly commands: CommandBus,
  ) {}

  async execute({ caller, sessionId }: ShredSessionCommand): Promise<ShredSessionResult> {
    const events = await this.store.readStream(sessionStreamId(caller.tenantId, sessionId));
    if (events.length === 0) {
      throw new ApiError(404, 'session_not_found', `No session "${sessionId}" for this tenant.`);
    }
    // Read before the keys go: the answer says which encrypted fields become unreadable, or that none were encrypted.
    const report = shredReportOf(events);
    // A session that never had a key gets a destroyed one: it is marked shredded all the same.
    const destroyed = await this.encryption.retire(caller.tenantId, sessionId, caller.actor);
    // Keys first, then the record: a failure in between leaves data unreadable, never readable.
    if (destroyed.length > 0) {
      const record = new RecordShreddingCommand(
        caller,
        sessionId,
        destroyed.map((k) => k.keyId),
        'POST /v1/sessions/:id/shred',
      );
      await this.commands.execute<RecordShreddingCommand, WriteResult>(record);
    }
    // Memory holds the session's plain text too: it leaves the index now, and again (already shredded) on a repeated request.
    await this.commands.execute(new ShredSessionMemoryCommand(caller.tenantId, sessionId));
    return { sessionId, keysDestroyed: destroyed.length, ...report, message: describeShred(`session "${sessionId}"`, report) };
  }
}
