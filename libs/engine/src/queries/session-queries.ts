import {
  buildContextWindow,
  describeStateChanges,
  diffJson,
  notFound,
  planHeadMove,
  resolveHeadMoveTarget,
  timelineView,
  withFilledCompensations,
  type ContextWindow,
  type ContextWindowOptions,
  type HeadMovePlan,
  type MoveHead,
  type SessionState,
} from '@rewind/domain';
import type { StoredEvent } from '@rewind/event-store';
import type { Caller } from '../commands/write-request';
import { asSessionEvent, type SessionRepository } from '../session-repository';
import { sessionIdFromStream, sessionStreamId, sessionStreamPrefix } from '../stream-id';
import { langGraphNodeOf, sessionView, summarizeEventData } from './session-views';

/** Reads of one tenant's sessions from the event store (through the repository's cache); never writes. */
export class SessionQueries {
  constructor(private readonly repository: SessionRepository) {}

  private get store() {
    return this.repository.store;
  }

  /** The state at `version` (default: the newest); a missing session or version is a 404 naming `field`. */
  private async existing(streamId: string, version?: number, field = 'at'): Promise<SessionState> {
    const current = await this.repository.load(streamId);
    if (current.version === 0) throw notFound('session_not_found', 'No such session for this tenant.');
    if (version === undefined || version === current.version) return current;
    if (!Number.isInteger(version) || version < 1 || version > current.version) {
      throw notFound('version_not_found', `Version ${version} does not exist: the session has versions 1 to ${current.version}.`, [
        { field, message: `must be between 1 and ${current.version}` },
      ]);
    }
    return this.repository.load(streamId, version);
  }

  getState(caller: Caller, sessionId: string, at?: number): Promise<SessionState> {
    return this.existing(sessionStreamId(caller.tenantId, sessionId), at);
  }

  /**
   * The tool of a call of the session, null when the session or the call is unknown. A call's
   * tool never changes, so the state the writers keep answers without a round trip when it knows
   * the call; the write that follows loads that same state (one load for the request, not two).
   */
  async toolOfCall(caller: Caller, sessionId: string, toolCallId: string): Promise<string | null> {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    // Not known here: another process may have started the call, so ask the store (which refreshes the cache for the write).
    const call = (await this.repository.toolCallOf(streamId, toolCallId, { trustCache: true })) ?? (await this.repository.toolCallOf(streamId, toolCallId));
    return call?.tool ?? null;
  }

  /** A head move's plan without doing anything (dry run), with the compensations as they would be sent. */
  async planHeadMove(caller: Caller, sessionId: string, command: MoveHead): Promise<HeadMovePlan> {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    const state = await this.existing(streamId);
    const target = resolveHeadMoveTarget(state, command);
    return withFilledCompensations(planHeadMove(state, target, await this.repository.pathAt(streamId, target.toVersion)), state.path);
  }

  /**
   * The timeline DAG. With `page`, only the nodes of versions `from`..`from+limit-1` (without
   * `from`: the newest) are detailed, and the whole DAG comes as `parents` (index = version):
   * how a client walks a session of many thousand events.
   */
  async timeline(caller: Caller, sessionId: string, page?: { from?: number; limit: number }) {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    const state = await this.existing(streamId);
    const view = timelineView(state.timeline, state.head, state.branchNames);
    const from = page ? (page.from ?? Math.max(1, state.version - page.limit + 1)) : 1;
    const to = page ? from + page.limit - 1 : state.version;
    const read = await this.store.readStream(streamId, page ? { fromVersion: from, limit: page.limit } : undefined);
    const events = new Map(read.map((e) => [e.streamVersion, asSessionEvent(e)]));
    return {
      sessionId,
      version: state.version,
      head: state.head,
      status: state.status,
      ...(page ? { parents: state.timeline, page: { from, to: Math.min(to, state.version) } } : {}),
      nodes: view.nodes
        .filter((node) => node.version >= from && node.version <= to)
        .map((node) => {
          const event = events.get(node.version);
          return {
            ...node,
            type: event?.type ?? 'unknown',
            occurredAt: event?.metadata.occurredAt ?? null,
            summary: event ? summarizeEventData(event.data) : null,
            // Who wrote the step: the caller's key, and the LangGraph node when the saver says it.
            actor: event?.metadata.actor ?? null,
            node: event ? langGraphNodeOf(event.data) : null,
          };
        }),
      branches: view.branches,
      checkpoints: Object.values(state.checkpoints),
      rollbacks: Object.values(state.rollbacks).map(({ plan, ...rest }) => ({ ...rest, effects: plan.length })),
    };
  }

  async events(caller: Caller, sessionId: string, from = 1, limit = 100): Promise<StoredEvent[]> {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    await this.existing(streamId);
    return this.store.readStream(streamId, { fromVersion: from, limit });
  }

  async diff(caller: Caller, sessionId: string, from: number, to: number) {
    const streamId = sessionStreamId(caller.tenantId, sessionId);
    const before = await this.existing(streamId, from, 'from');
    const after = await this.existing(streamId, to, 'to');
    // `changes` field by field (kept for clients that read paths), `items` one thing at a time and in words.
    return { sessionId, from, to, changes: diffJson(sessionView(before), sessionView(after)), items: describeStateChanges(before, after) };
  }

  async context(
    caller: Caller,
    sessionId: string,
    options: ContextWindowOptions & { at?: number },
  ): Promise<ContextWindow & { sessionId: string; head: number }> {
    const state = await this.getState(caller, sessionId, options.at);
    return { sessionId, head: state.head, ...buildContextWindow(state.path, options) };
  }

  async listSessions(caller: Caller, options: { after?: string; limit: number }) {
    const prefix = sessionStreamPrefix(caller.tenantId);
    const streams = await this.store.listStreams({ prefix, limit: options.limit, ...(options.after ? { after: prefix + options.after } : {}) });
    const items = streams.map((s) => ({ sessionId: sessionIdFromStream(s.streamId), version: s.version, createdAt: s.createdAt, updatedAt: s.updatedAt }));
    return { items, nextCursor: items.length === options.limit ? items[items.length - 1]!.sessionId : null };
  }
}
