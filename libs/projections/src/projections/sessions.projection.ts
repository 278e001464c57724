import { isStepEvent } from '@rewind/domain';
import { intField, optionalTextField, textField, type ProjectedEvent } from '../projected-event';
import { HEAD_MESSAGES, SESSIONS, TIMELINE_NODES, type Row } from '../schema';
import type { Dialect, Step, TableVariant } from '../sql';
import { sessionKey, type Projection } from './projection';

interface SessionRow {
  tenant_id: string;
  session_id: string;
  title: string | null;
  status: string;
  head: number;
  version: number;
  message_count: number;
  tool_call_count: number;
  branch_count: number;
  head_is_leaf: boolean;
  failed_effects: number;
  created_at: string;
  last_activity_at: string;
  last_position: number;
}

interface MessageFields {
  turn_id: string;
  message_id: string;
  role: string;
  content: string;
  partial: boolean;
}

/** The message a step event adds to its path (as `evolve` folds it), or null. */
export function messageOf(event: ProjectedEvent): MessageFields | null {
  const d = event.data;
  switch (event.type) {
    case 'UserMessageReceived':
    case 'AgentMessageProduced':
      return {
        turn_id: textField(d, 'turnId'),
        message_id: textField(d, 'messageId'),
        role: event.type === 'UserMessageReceived' ? 'user' : 'agent',
        content: textField(d, 'content'),
        partial: false,
      };
    case 'TurnInterrupted': {
      const content = textField(d, 'partialContent');
      if (content.length === 0) return null;
      const turnId = textField(d, 'turnId');
      return { turn_id: turnId, message_id: `${turnId}:partial`, role: 'agent', content, partial: true };
    }
    default:
      return null;
  }
}

/** Which of the (tenant, session, version) nodes have at least one child, as `tenant\0session\0version` keys. */
function* nodesWithChildren(d: Dialect, variant: TableVariant, keys: readonly [string, string, number][]): Step<Set<string>> {
  const rows = yield* d.select(TIMELINE_NODES, ['tenant_id', 'session_id', 'parent_version'], keys, {
    variant,
    columns: ['tenant_id', 'session_id', 'parent_version'],
    limit: 1,
  });
  return new Set(rows.map((r) => `${sessionKey(r.tenant_id as string, r.session_id as string)}\u0000${r.parent_version as number}`));
}

/** The timeline nodes that are the head messages: the message nodes on the head's path (a condition both databases accept). */
const HEAD_MESSAGE_NODES = 'on_head_path AND role IS NOT NULL';

/**
 * After the head moved to another path: flags the nodes of the new head's ancestry and
 * rebuilds the session's head messages from them. O(session) per moved session, once per
 * batch: the sessions' nodes are read in one go, their ancestry walked here, and only the
 * flags that change are written.
 */
function* recomputeHeadPaths(d: Dialect, variant: TableVariant, sessions: readonly [string, string, number][], withMessages = true): Step<void> {
  if (sessions.length === 0) return;
  const keys = sessions.map(([t, s]) => [t, s] as const);
  const sessionColumns = ['tenant_id', 'session_id'];
  type NodeFlag = { tenant_id: string; session_id: string; version: number; parent_version: number | null; on_head_path: boolean };
  const rows = (yield* d.select(TIMELINE_NODES, sessionColumns, keys, {
    variant,
    columns: ['tenant_id', 'session_id', 'version', 'parent_version', 'on_head_path'],
  })) as unknown as NodeFlag[];
  const bySession = new Map<string, NodeFlag[]>();
  for (const row of rows) {
    const key = sessionKey(row.tenant_id, row.session_id);
    let list = bySession.get(key);
    if (!list) bySession.set(key, (list = []));
    list.push(row);
  }
  const changes: Row[] = [];
  for (const [tenantId, sessionId, head] of sessions) {
    const list = bySession.get(sessionKey(tenantId, sessionId)) ?? [];
    const parents = new Map(list.map((n) => [n.version, n.parent_version]));
    const path = new Set<number>();
    for (let v: number | null | undefined = head; v && !path.has(v); v = parents.get(v)) path.add(v);
    for (const n of list) {
      const flag = path.has(n.version);
      if (flag !== n.on_head_path) changes.push({ tenant_id: tenantId, session_id: sessionId, version: n.version, on_head_path: flag });
    }
  }
  yield* d.update(TIMELINE_NODES, ['on_head_path'], changes, variant);
  if (!withMessages) return;
  yield* d.delete(HEAD_MESSAGES, variant, { columns: sessionColumns, keys });
  yield* d.insertFrom(HEAD_MESSAGES, TIMELINE_NODES, HEAD_MESSAGE_NODES, variant, { columns: sessionColumns, keys });
}

/**
 * `sessions` (one row per session), `timeline_nodes` (one per step event: the DAG, with
 * the head's path flagged and message text kept) and `head_messages` (the messages on the
 * head's path). A step that extends the head adds its node and message; a head move
 * (rollback, undo, redo, jump, or a step off another node) recomputes the session's path
 * flags and head messages from its nodes, once per batch.
 */
export const sessionsProjection: Projection = {
  name: 'sessions',
  description: 'sessions, timeline nodes and the messages on the head path',
  tables: [SESSIONS, TIMELINE_NODES, HEAD_MESSAGES],

  *apply(d: Dialect, events: readonly ProjectedEvent[], variant: TableVariant, options: { bulk?: boolean } = {}): Step<void> {
    const relevant = events.filter((e) => e.sessionId !== null);
    if (relevant.length === 0) return;

    // Load what the batch needs, in bulk: the sessions, and which head-move targets have children.
    const keys = new Map<string, [string, string]>();
    const targets: [string, string, number][] = [];
    for (const e of relevant) {
      keys.set(sessionKey(e.tenantId, e.sessionId!), [e.tenantId, e.sessionId!]);
      if (e.type === 'RollbackCompleted') targets.push([e.tenantId, e.sessionId!, intField(e.data, 'toVersion')]);
    }
    const sessions = new Map<string, SessionRow>();
    for (const row of yield* d.selectByKeys(SESSIONS, [...keys.values()], variant)) {
      sessions.set(sessionKey(row.tenant_id as string, row.session_id as string), row as unknown as SessionRow);
    }
    const loaded = new Set(sessions.values());
    const withChildren = yield* nodesWithChildren(d, variant, targets);
    /** What the database said about head-move targets (before this batch's nodes). */
    const known = new Map<string, boolean>(targets.map(([t, s, v]) => [`${sessionKey(t, s)}\u0000${v}`, false]));
    for (const nodeKey of withChildren) known.set(nodeKey, true);

    const nodes: Row[] = [];
    const headMessages = new Map<string, Row[]>();
    const moved = new Set<string>();
    /** `tenant\0session\0parent` of nodes added in this batch (their parents now have children). */
    const parents = new Set<string>();
    const hasChildren = function* (key: string, tenantId: string, sessionId: string, version: number): Step<boolean> {
      const nodeKey = `${key}\u0000${version}`;
      if (parents.has(nodeKey)) return true;
      const answer = known.get(nodeKey);
      if (answer !== undefined) return answer;
      const found = (yield* nodesWithChildren(d, variant, [[tenantId, sessionId, version]])).size > 0;
      known.set(nodeKey, found);
      return found;
    };

    for (const e of relevant) {
      const key = sessionKey(e.tenantId, e.sessionId!);
      let row = sessions.get(key);
      if (!row) {
        row = {
          tenant_id: e.tenantId,
          session_id: e.sessionId!,
          title: null,
          status: 'active',
          head: 0,
          version: 0,
          message_count: 0,
          tool_call_count: 0,
          branch_count: 0,
          head_is_leaf: false,
          failed_effects: 0,
          created_at: e.occurredAt,
          last_activity_at: e.occurredAt,
          last_position: e.position,
        };
        sessions.set(key, row);
      }
      row.version = e.streamVersion;
      row.last_activity_at = e.occurredAt;
      row.last_position = e.position;

      if (isStepEvent(e.type)) {
        const parent = e.parentVersion ?? 0;
        let parentIsLeaf: boolean;
        if (parent === row.head) {
          parentIsLeaf = row.head_is_leaf;
        } else {
          moved.add(key);
          parentIsLeaf = parent === 0 ? false : !(yield* hasChildren(key, e.tenantId, e.sessionId!, parent));
        }
        // A new node is a new leaf; it replaces its parent as a leaf unless the parent had a child already.
        if (!parentIsLeaf) row.branch_count += 1;
        parents.add(`${key}\u0000${parent}`);
        row.head = e.streamVersion;
        row.head_is_leaf = true;

        const message = messageOf(e);
        nodes.push({
          tenant_id: e.tenantId,
          session_id: e.sessionId,
          version: e.streamVersion,
          parent_version: e.parentVersion,
          type: e.type,
          occurred_at: e.occurredAt,
          global_position: e.position,
          on_head_path: true,
          turn_id: message?.turn_id ?? null,
          message_id: message?.message_id ?? null,
          role: message?.role ?? null,
          content: message?.content ?? null,
          partial: message ? message.partial : null,
        });
        if (message) {
          row.message_count += 1;
          let list = headMessages.get(key);
          if (!list) headMessages.set(key, (list = []));
          list.push({ tenant_id: e.tenantId, session_id: e.sessionId, version: e.streamVersion, ...message, occurred_at: e.occurredAt });
        }
        if (e.type === 'SessionStarted') {
          row.title = optionalTextField(e.data, 'title');
          row.created_at = e.occurredAt;
        } else if (e.type === 'ToolCallStarted') {
          row.tool_call_count += 1;
        }
        continue;
      }

      switch (e.type) {
        case 'RollbackRequested':
          row.status = 'rolling_back';
          row.failed_effects = 0;
          break;
        case 'CompensationFailed':
          row.status = 'needs_attention';
          row.failed_effects += 1;
          break;
        case 'CompensationRetryRequested':
        case 'CompensationResolved':
          row.failed_effects = Math.max(0, row.failed_effects - 1);
          if (row.failed_effects === 0 && row.status !== 'active') row.status = 'rolling_back';
          break;
        case 'RollbackCompleted': {
          const to = intField(e.data, 'toVersion');
          row.status = 'active';
          row.failed_effects = 0;
          if (to !== row.head) moved.add(key);
          row.head = to;
          row.head_is_leaf = !(yield* hasChildren(key, e.tenantId, e.sessionId!, to));
          break;
        }
        default:
          break;
      }
    }

    yield* d.insert(TIMELINE_NODES, nodes, { variant });
    if (!options.bulk) {
      const linear: Row[] = [];
      for (const [key, list] of headMessages) if (!moved.has(key)) linear.push(...list);
      yield* d.insert(HEAD_MESSAGES, linear, { variant });
    }
    if (options.bulk) {
      // A bulk fill starts from empty tables: sessions first seen in this batch are plain inserts.
      const all = [...sessions.values()];
      yield* d.insert(SESSIONS, all.filter((r) => !loaded.has(r)) as unknown as Row[], { variant });
      yield* d.insert(SESSIONS, all.filter((r) => loaded.has(r)) as unknown as Row[], { variant, upsert: true });
    } else {
      yield* d.insert(SESSIONS, [...sessions.values()] as unknown as Row[], { variant, upsert: true });
    }
    const recompute: [string, string, number][] = [];
    for (const key of moved) {
      const row = sessions.get(key)!;
      recompute.push([row.tenant_id, row.session_id, row.head]);
    }
    yield* recomputeHeadPaths(d, variant, recompute, !options.bulk);
  },

  /** head_messages is exactly the flagged message nodes: after a bulk fill, one statement makes it. */
  *finishBulk(d: Dialect, variant: TableVariant): Step<void> {
    yield* d.delete(HEAD_MESSAGES, variant);
    yield* d.insertFrom(HEAD_MESSAGES, TIMELINE_NODES, HEAD_MESSAGE_NODES, variant);
  },
};
