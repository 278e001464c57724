import { isStepEvent, type RecordedSessionEvent, type SessionEvent } from './events';
import { addTurn, emptyPathState, findTurnIndex, toolCallToChange, turnToChange, type PathState, type SessionState, type Turn } from './state';

/** Gives a private copy of the path state at a timeline node (for head moves). */
export type PathResolver = (version: number) => PathState;

type Recorded<E extends SessionEvent = SessionEvent> = E & Pick<RecordedSessionEvent, 'streamVersion' | 'parentVersion' | 'metadata'>;

/**
 * Folds one committed event into `state`, **in place** (a fold over thousands of events
 * must not copy the memory map at every step). Callers that keep the old value pass a
 * copy (`cloneState`). Head moves need the path state of their target, which a linear
 * fold does not have: `resolvePath` supplies it.
 */
export function evolveInPlace(state: SessionState, event: Recorded, resolvePath: PathResolver): SessionState {
  const version = event.streamVersion;
  if (isStepEvent(event.type)) {
    const parent = event.parentVersion ?? 0;
    if (parent !== state.head) state.path = parent === 0 ? emptyPathState() : resolvePath(parent);
    state.timeline.push(parent);
    state.head = version;
    state.redoStack = [];
    applyStep(state, event, version);
  } else {
    state.timeline.push(-1);
    applyControl(state, event, version, resolvePath);
  }
  state.version = version;
  return state;
}

function turnOf(path: PathState, turnId: string, version: number): Turn {
  const index = findTurnIndex(path, turnId);
  let turn = index >= 0 ? turnToChange(path, index) : undefined;
  if (!turn) {
    turn = { turnId, status: 'open', startedVersion: version, messages: [] };
    addTurn(path, turn);
  }
  return turn;
}

function applyStep(state: SessionState, event: Recorded, version: number): void {
  const path = state.path;
  switch (event.type) {
    case 'SessionStarted':
      state.sessionId = event.data.sessionId;
      state.title = event.data.title;
      state.metadata = event.data.metadata;
      state.startedAt = event.metadata.occurredAt;
      return;
    case 'UserMessageReceived': {
      const turn = turnOf(path, event.data.turnId, version);
      turn.messages.push({ messageId: event.data.messageId, role: 'user', content: event.data.content, version, partial: false });
      return;
    }
    case 'AgentMessageProduced': {
      const turn = turnOf(path, event.data.turnId, version);
      turn.messages.push({ messageId: event.data.messageId, role: 'agent', content: event.data.content, version, partial: false });
      turn.status = 'complete';
      return;
    }
    case 'TurnInterrupted': {
      const turn = turnOf(path, event.data.turnId, version);
      if (event.data.partialContent.length > 0) {
        turn.messages.push({ messageId: `${event.data.turnId}:partial`, role: 'agent', content: event.data.partialContent, version, partial: true });
      }
      turn.status = 'interrupted';
      return;
    }
    case 'ToolCallStarted': {
      const previous = path.toolCalls[event.data.toolCallId];
      path.toolCalls[event.data.toolCallId] = {
        ...event.data,
        status: 'started',
        output: null,
        error: null,
        retryable: null,
        attempts: (previous?.attempts ?? 0) + 1,
        startedVersion: version,
        finishedVersion: null,
      };
      return;
    }
    case 'ToolCallProposed':
      path.proposals[event.data.toolCallId] = {
        ...event.data,
        status: 'pending',
        proposedBy: event.metadata.actor,
        proposedAt: event.metadata.occurredAt,
        proposedVersion: version,
        decidedBy: null,
        decidedAt: null,
        decidedVersion: null,
        note: null,
      };
      return;
    case 'ToolCallApproved':
    case 'ToolCallRejected': {
      const proposal = path.proposals[event.data.toolCallId];
      if (!proposal) return;
      const approved = event.type === 'ToolCallApproved';
      path.proposals[event.data.toolCallId] = {
        ...proposal,
        status: approved ? 'approved' : 'rejected',
        decidedBy: approved ? event.data.approvedBy : event.data.rejectedBy,
        decidedAt: event.metadata.occurredAt,
        decidedVersion: version,
        note: approved ? event.data.note : event.data.reason,
      };
      return;
    }
    case 'ToolCallSucceeded': {
      const call = toolCallToChange(path, event.data.toolCallId);
      if (call) Object.assign(call, { status: 'succeeded', output: event.data.output, finishedVersion: version });
      return;
    }
    case 'ToolCallFailed': {
      const call = toolCallToChange(path, event.data.toolCallId);
      if (call) {
        Object.assign(call, { status: 'failed', error: event.data.error, retryable: event.data.retryable, finishedVersion: version });
      }
      return;
    }
    case 'MemoryWritten':
      path.memory[event.data.key] = event.data.value;
      return;
    case 'MemoryErased':
      delete path.memory[event.data.key];
      return;
    case 'ContextVariableSet':
      path.contextVars[event.data.name] = event.data.value;
      return;
    case 'TaskPushed':
      path.tasks.push({ taskId: event.data.taskId, title: event.data.title, data: event.data.data, version });
      return;
    case 'TaskPopped':
      path.tasks.pop();
      return;
    case 'AgentThoughtRecorded':
      path.thoughts.push({ ...event.data, version });
      return;
    default:
      return;
  }
}

function applyControl(state: SessionState, event: Recorded, version: number, resolvePath: PathResolver): void {
  switch (event.type) {
    case 'BranchNamed':
      state.branchNames[event.data.version] = event.data.name;
      return;
    case 'CheckpointCreated':
      state.checkpoints[event.data.label] = { label: event.data.label, version: event.data.version, createdVersion: version };
      return;
    case 'RollbackRequested': {
      const d = event.data;
      state.rollbacks[d.rollbackId] = {
        rollbackId: d.rollbackId,
        kind: d.kind,
        fromVersion: d.fromVersion,
        toVersion: d.toVersion,
        plan: d.plan,
        acknowledgeIrreversible: d.acknowledgeIrreversible,
        requestedBy: event.metadata.actor,
        requestedVersion: version,
        status: 'in_progress',
        completedVersion: null,
      };
      for (const item of d.plan) {
        if (item.action !== 'compensate') continue;
        state.effectOutcomes[item.startedVersion] = {
          toolCallId: item.toolCallId,
          startedVersion: item.startedVersion,
          rollbackId: d.rollbackId,
          status: 'pending',
          attempts: 0,
          detail: null,
        };
      }
      if (d.then && d.then.length > 0) state.pendingForks[d.rollbackId] = { then: d.then, branchName: d.branchName ?? null };
      state.activeRollbackId = d.rollbackId;
      state.status = 'rolling_back';
      return;
    }
    case 'CompensationApplied':
      state.effectOutcomes[event.data.startedVersion] = {
        toolCallId: event.data.toolCallId,
        startedVersion: event.data.startedVersion,
        rollbackId: event.data.rollbackId,
        status: 'compensated',
        attempts: event.data.attempts,
        detail: event.data.response,
      };
      return;
    case 'CompensationSkipped':
      state.effectOutcomes[event.data.startedVersion] = {
        toolCallId: event.data.toolCallId,
        startedVersion: event.data.startedVersion,
        rollbackId: event.data.rollbackId,
        status: 'skipped',
        attempts: 0,
        detail: { reason: event.data.reason, acknowledgedBy: event.data.acknowledgedBy },
      };
      return;
    case 'CompensationFailed': {
      state.effectOutcomes[event.data.startedVersion] = {
        toolCallId: event.data.toolCallId,
        startedVersion: event.data.startedVersion,
        rollbackId: event.data.rollbackId,
        status: 'failed',
        attempts: event.data.attempts,
        detail: { error: event.data.error },
      };
      const rollback = state.rollbacks[event.data.rollbackId];
      if (rollback) rollback.status = 'needs_attention';
      state.status = 'needs_attention';
      return;
    }
    case 'CompensationAttemptFailed': {
      const outcome = state.effectOutcomes[event.data.startedVersion];
      if (outcome) {
        outcome.attempts = event.data.attempt;
        outcome.detail = { lastError: event.data.error, retryInMs: event.data.retryInMs };
      }
      return;
    }
    case 'CompensationRetryRequested': {
      const outcome = state.effectOutcomes[event.data.startedVersion];
      if (outcome) Object.assign(outcome, { status: 'pending', detail: { retryRequestedBy: event.data.requestedBy } });
      reopen(state, event.data.rollbackId);
      return;
    }
    case 'CompensationResolved': {
      const outcome = state.effectOutcomes[event.data.startedVersion];
      if (outcome) Object.assign(outcome, { status: 'resolved', detail: { resolvedBy: event.data.resolvedBy, note: event.data.note } });
      reopen(state, event.data.rollbackId);
      return;
    }
    case 'RollbackCompleted': {
      const rollback = state.rollbacks[event.data.rollbackId];
      if (rollback) {
        rollback.status = 'completed';
        rollback.completedVersion = version;
        if (rollback.kind === 'redo') state.redoStack.pop();
        else state.redoStack.push(rollback.fromVersion);
      }
      delete state.pendingForks[event.data.rollbackId];
      state.path = resolvePath(event.data.toVersion);
      state.head = event.data.toVersion;
      state.activeRollbackId = null;
      state.status = 'active';
      return;
    }
    default:
      return;
  }
}

/** A rollback with no failed effect left goes back to work (the saga finishes it). */
function reopen(state: SessionState, rollbackId: string): void {
  const rollback = state.rollbacks[rollbackId];
  if (!rollback || rollback.status === 'completed') return;
  const stillFailed = Object.values(state.effectOutcomes).some((o) => o.rollbackId === rollbackId && o.status === 'failed');
  if (stillFailed) return;
  rollback.status = 'in_progress';
  state.status = 'rolling_back';
}
