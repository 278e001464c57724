import { isStepEvent, type PathState, type SessionEvent, type SessionState } from '@rewind/domain';
import type { StoredEvent } from '@rewind/event-store';
import { asSessionEvent, type SessionRepository } from '../session-repository';
import { sessionIdFromStream } from '../stream-id';
import type { CommandRequest, CommandStream, WrittenRange } from './command-pipeline';
import type { WriteResult, WrittenEvent } from './write-request';

/** Told after each commit (not for idempotent replays), e.g. to start the saga. */
export type SessionCommitListener = (tenantId: string, sessionId: string, events: StoredEvent<SessionEvent>[]) => void;

/** What a session decision hands its commit besides the events. */
export interface SessionCommitContext {
  /** The path a head move (or a rollback's completion) lands on, restored before deciding. */
  targetPath?: PathState;
  /** The state the events were already folded into while deciding (a batch of steps): adopted, not folded again. */
  folded?: SessionState;
}

/**
 * A session's part in the pipeline: state from the repository (cached, snapshotted), the
 * appended events folded into the cache, and the write result as HTTP and Kafka answer it.
 */
export class SessionStream implements CommandStream<SessionState, SessionCommitContext, WriteResult, SessionEvent> {
  constructor(
    private readonly repository: SessionRepository,
    private readonly listener?: SessionCommitListener,
  ) {}

  load(streamId: string, trustCache: boolean): Promise<SessionState> {
    return this.repository.load(streamId, undefined, { trustCache, forWrite: true });
  }

  forget(streamId: string): void {
    this.repository.forget(streamId);
  }

  async committed(streamId: string, decidedOn: SessionState, stored: StoredEvent<SessionEvent>[], context: SessionCommitContext): Promise<WriteResult> {
    const next = await this.repository.committed(streamId, decidedOn, stored, context);
    return writeSummary(streamId, next, stored);
  }

  async replayed(written: WrittenRange): Promise<WriteResult> {
    const events = await this.repository.store.readStream(written.streamId, { fromVersion: written.firstVersion, toVersion: written.lastVersion });
    // A retry that follows its write at once finds that version in the cache; an older one is restored (snapshot + tail).
    const state = await this.repository.load(written.streamId, written.lastVersion);
    return { ...writeSummary(written.streamId, state, events.map(asSessionEvent)), duplicate: true };
  }

  onCommitted(request: CommandRequest, stored: StoredEvent<SessionEvent>[]): void {
    this.listener?.(request.caller.tenantId, request.sessionId, stored);
  }
}

function writeSummary(streamId: string, state: SessionState, events: readonly StoredEvent<SessionEvent>[]): WriteResult {
  const written = events.map(writtenEvent);
  return {
    sessionId: sessionIdFromStream(streamId),
    version: events[events.length - 1]?.streamVersion ?? state.version,
    head: state.head,
    stepVersion: written.findLast((e) => e.step)?.streamVersion ?? null,
    status: state.status,
    duplicate: false,
    events: written,
    ...rollbackIdOf(events),
  };
}

/** An appended event as write results list it, saying whether it is a timeline node. */
export function writtenEvent(event: Pick<StoredEvent, 'eventId' | 'type' | 'streamVersion' | 'parentVersion'>): WrittenEvent {
  return { eventId: event.eventId, type: event.type, streamVersion: event.streamVersion, parentVersion: event.parentVersion, step: isStepEvent(event.type) };
}

function rollbackIdOf(events: readonly StoredEvent<SessionEvent>[]): { rollbackId?: string } {
  for (const event of events) if (event.type === 'RollbackRequested') return { rollbackId: event.data.rollbackId };
  return {};
}
