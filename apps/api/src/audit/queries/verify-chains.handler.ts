import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { sessionStreamId, sessionStreamPrefix } from '@rewind/engine';
import { verifyLog, type AuditVerification, type EventStore, type SealStore } from '@rewind/event-store';
import { ApiError } from '../../common/api-error';
import { EVENT_STORE } from '../../infrastructure/tokens';
import { SEAL_STORE } from '../tokens';
import { VerifyChainsQuery, type ChainsAnswer } from './verify-chains.query';

@QueryHandler(VerifyChainsQuery)
export class VerifyChainsHandler implements IQueryHandler<VerifyChainsQuery, ChainsAnswer & { sessions: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SEAL_STORE) private readonly seals: SealStore,
  ) {}

  async execute({ tenantId, sessionId }: VerifyChainsQuery) {
    if (sessionId !== undefined) {
      const streamId = sessionStreamId(tenantId, sessionId);
      if ((await this.store.streamVersion(streamId)) === 0) throw new ApiError(404, 'session_not_found', `No session "${sessionId}" for this tenant.`);
      return { sessions: 1, ...withoutPosition(await verifyLog(this.store, this.seals, { streamIds: [streamId] })) };
    }
    // Every event of the tenant's sessions in the log, whether or not its session is recorded.
    const prefix = sessionStreamPrefix(tenantId);
    let sessions = 0;
    for (let after: string | undefined; ; ) {
      const page = await this.store.listStreams({ prefix, limit: 1000, ...(after ? { after } : {}) });
      sessions += page.length;
      if (page.length < 1000) break;
      after = page[page.length - 1]!.streamId;
    }
    return { sessions, ...withoutPosition(await verifyLog(this.store, this.seals, { streamPrefix: prefix })) };
  }
}

/**
 * The broken link without its position in the whole log, for every caller: the route answers for
 * one tenant, and a position there tells how much every other tenant wrote. The stream and version
 * name the event; an operator's `rewind audit verify` reads the store and prints the position.
 */
function withoutPosition(verification: AuditVerification): ChainsAnswer {
  if (!verification.firstBroken) return { ...verification, firstBroken: null };
  const { position: _position, ...firstBroken } = verification.firstBroken;
  return { ...verification, firstBroken };
}
