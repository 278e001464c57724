import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { sessionStreamId, sessionStreamPrefix } from '@rewind/engine';
import { verifyLog, type AuditVerification, type EventStore, type SealStore } from '@rewind/event-store';
import { ApiError } from '../../common/api-error';
import { EVENT_STORE } from '../../infrastructure/tokens';
import { SEAL_STORE } from '../tokens';
import { VerifyChainsQuery } from './verify-chains.query';

@QueryHandler(VerifyChainsQuery)
export class VerifyChainsHandler implements IQueryHandler<VerifyChainsQuery, AuditVerification & { sessions: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SEAL_STORE) private readonly seals: SealStore,
  ) {}

  async execute({ tenantId, sessionId }: VerifyChainsQuery) {
    let streamIds: string[];
    if (sessionId !== undefined) {
      streamIds = [sessionStreamId(tenantId, sessionId)];
      if ((await this.store.streamVersion(streamIds[0]!)) === 0) throw new ApiError(404, 'session_not_found', `No session "${sessionId}" for this tenant.`);
    } else {
      streamIds = [];
      for (let after: string | undefined; ; ) {
        const page = await this.store.listStreams({ prefix: sessionStreamPrefix(tenantId), limit: 1000, ...(after ? { after } : {}) });
        streamIds.push(...page.map((s) => s.streamId));
        if (page.length < 1000) break;
        after = page[page.length - 1]!.streamId;
      }
    }
    return { sessions: streamIds.length, ...(await verifyLog(this.store, this.seals, { streamIds })) };
  }
}
