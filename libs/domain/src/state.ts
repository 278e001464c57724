import { appendOnlyView } from './append-only-view';
import type { EffectDescriptor } from './effects';
import type { HeadMoveKind, PlannedEffect } from './events';
import type { JsonObject, JsonValue } from './json';
import { lazyPartOf, lazyTurnIndex, materialisedTimeline, materialisedToolCalls, materialisedTurns } from './sealed-history';

export type { Message, MessageRole, ToolCall, ToolCallStatus, Turn, TurnStatus } from './turn-records';
import type { ToolCall, Turn } from './turn-records';

export interface Task {
  taskId: string;
  title: string;
  data: JsonValue;
  version: number;
}

/** The agent's reasoning at one step (not something it knows: kept out of the LLM context). */
export interface Thought {
  thoughtId: string;
  turnId: string | null;
  content: string;
  steps: string[];
  version: number;
}

export type ProposalStatus = 'pending' | 'approved' | 'rejected';

/** A tool call put to a person: who proposed and who decided, when (stream versions and times). */
export interface Proposal {
  toolCallId: string;
  tool: string;
  input: JsonValue;
  effect: EffectDescriptor;
  turnId: string | null;
  status: ProposalStatus;
  proposedBy: string;
  proposedAt: string;
  proposedVersion: number;
  decidedBy: string | null;
  decidedAt: string | null;
  decidedVersion: number | null;
  /** The approver's note or the rejection's reason. */
  note: string | null;
}

/** What the agent knows: the fold of the head's ancestry path. */
export interface PathState {
  turns: Turn[];
  memory: Record<string, JsonValue>;
  contextVars: Record<string, JsonValue>;
  tasks: Task[];
  toolCalls: Record<string, ToolCall>;
  thoughts: Thought[];
  /** Tool calls proposed for approval, by toolCallId. */
  proposals: Record<string, Proposal>;
}

export type CompensationStatus = 'pending' | 'compensated' | 'skipped' | 'failed' | 'resolved';

export interface EffectOutcome {
  toolCallId: string;
  startedVersion: number;
  rollbackId: string;
  status: CompensationStatus;
  attempts: number;
  detail: JsonValue;
}

export type RollbackStatus = 'in_progress' | 'needs_attention' | 'completed';

export interface RollbackRecord {
  rollbackId: string;
  kind: HeadMoveKind;
  fromVersion: number;
  toVersion: number;
  plan: PlannedEffect[];
  acknowledgeIrreversible: boolean;
  requestedBy: string;
  requestedVersion: number;
  status: RollbackStatus;
  completedVersion: number | null;
}

export type SessionStatus = 'active' | 'rolling_back' | 'needs_attention';

export interface Checkpoint {
  label: string;
  version: number;
  createdVersion: number;
}

/**
 * The whole session at one stream version: the path state of its head plus what is
 * true of the session across branches (head, checkpoints, rollbacks, compensations).
 */
export interface SessionState {
  sessionId: string;
  title: string | null;
  metadata: JsonObject;
  startedAt: string | null;
  /** Last stream version folded in. */
  version: number;
  /** The timeline node whose path state is current (0 before the session starts). */
  head: number;
  status: SessionStatus;
  path: PathState;
  /**
   * `timeline[v - 1]` is the parent of version v: 0 for the root, -1 for events that
   * are not timeline nodes.
   */
  timeline: number[];
  checkpoints: Record<string, Checkpoint>;
  /** Heads left by backward moves, newest last; redo pops, a new step clears it. */
  redoStack: number[];
  rollbacks: Record<string, RollbackRecord>;
  activeRollbackId: string | null;
  /** Compensation outcomes keyed by the tool call's start version (unique across branches). */
  effectOutcomes: Record<string, EffectOutcome>;
  /** Branch names, keyed by the version of the step that carries them. */
  branchNames: Record<string, string>;
  /** Forks whose rollback is still running: the steps to record when it completes, by rollback id. */
  pendingForks: Record<string, PendingFork>;
}

export interface PendingFork {
  /** The step commands (JSON of StepCommand: state.ts cannot name the commands' type). */
  then: JsonObject[];
  branchName: string | null;
}

/** The turn with this id on the path; searched from the newest, where steps almost always land. */
/**
 * A path state may hand out its own copy of a turn before evolve changes it (a scratch state
 * shares the turns it has not changed with the state it was made from: see scratchForSteps).
 */
export const OWN_TURN: unique symbol = Symbol('rewind.ownTurn');
type OwnsTurns = PathState & { [OWN_TURN]?: (index: number) => Turn };

/**
 * The turn at `index`, to be changed in place. A frozen one (shared with the snapshot segment
 * cache) is replaced by its own copy first.
 */
export function turnToChange(path: PathState, index: number): Turn {
  const turn = (path as OwnsTurns)[OWN_TURN]?.(index) ?? path.turns[index]!;
  if (!Object.isFrozen(turn)) return turn;
  const copy = { ...turn, messages: turn.messages.slice() };
  path.turns[index] = copy;
  return copy;
}

/** The tool call at `key`, to be changed in place (a frozen, shared one is replaced by its own copy first). */
export function toolCallToChange(path: PathState, key: string): ToolCall | undefined {
  const call = path.toolCalls[key];
  if (!call || !Object.isFrozen(call)) return call;
  const copy = { ...call };
  path.toolCalls[key] = copy;
  return copy;
}

/**
 * Turn id → index, kept beside each turns array (not part of the state, so snapshots and copies
 * are unchanged): a new turn's id is looked up without scanning every turn of a long session, which
 * every new turn did (in the scratch state and again in the fold). Rebuilt when it no longer
 * matches its array's length; a hit is checked against the array before it is trusted. Relies on
 * turns being added at the end and an entry being replaced only by a copy of the same turn (its id
 * kept), as evolve and scratchForSteps do.
 */
const turnIndexes = new WeakMap<Turn[], Map<string, number>>();

function turnIndexOf(turns: Turn[]): Map<string, number> {
  let index = turnIndexes.get(turns);
  if (!index || index.size !== turns.length) {
    index = new Map();
    for (let i = 0; i < turns.length; i++) index.set(turns[i]!.turnId, i);
    turnIndexes.set(turns, index);
  }
  return index;
}

/** Turns arrays copied from another (a scratch state's): the same ids at the same places, then their own. */
const copiedFrom = new WeakMap<Turn[], Turn[]>();

/**
 * A copy of `turns` that looks ids up through the original's index (see scratchForSteps): a view
 * that keeps its own changes and reads the rest through to `turns`, which must not change meanwhile.
 */
export function copyTurns(turns: Turn[]): Turn[] {
  const copy = appendOnlyView(turns);
  copiedFrom.set(copy, turns);
  return copy;
}

export function findTurnIndex(path: PathState, turnId: string): number {
  return indexIn(path.turns, turnId);
}

function indexIn(turns: Turn[], turnId: string): number {
  // A view over sealed history finds ids through its segments' filters (see sealed-history.ts).
  const lazy = lazyTurnIndex(turns, turnId);
  if (lazy !== undefined) return lazy;
  // The open turn is the common case.
  if (turns.length > 0 && turns[turns.length - 1]!.turnId === turnId) return turns.length - 1;
  const original = copiedFrom.get(turns);
  if (original && original.length <= turns.length) {
    for (let j = turns.length - 1; j >= original.length; j--) if (turns[j]!.turnId === turnId) return j;
    const i = indexIn(original, turnId);
    if (i < 0 || turns[i]?.turnId === turnId) return i;
  }
  const i = turnIndexOf(turns).get(turnId);
  if (i !== undefined && turns[i]?.turnId === turnId) return i;
  if (i === undefined && turnIndexOf(turns).size === turns.length) return -1;
  for (let j = turns.length - 1; j >= 0; j--) if (turns[j]!.turnId === turnId) return j;
  return -1;
}

/** Appends a new turn, keeping the id index in step. */
export function addTurn(path: PathState, turn: Turn): void {
  const turns = path.turns;
  const index = turnIndexes.get(turns);
  const fresh = index !== undefined && index.size === turns.length && !index.has(turn.turnId);
  turns.push(turn);
  if (fresh) index.set(turn.turnId, turns.length - 1);
}

export function findTurn(path: PathState, turnId: string): Turn | undefined {
  const i = findTurnIndex(path, turnId);
  return i >= 0 ? path.turns[i] : undefined;
}

export function emptyPathState(): PathState {
  return { turns: [], memory: {}, contextVars: {}, tasks: [], toolCalls: {}, thoughts: [], proposals: {} };
}

export function initialSessionState(): SessionState {
  return {
    sessionId: '',
    title: null,
    metadata: {},
    startedAt: null,
    version: 0,
    head: 0,
    status: 'active',
    path: emptyPathState(),
    timeline: [],
    checkpoints: {},
    redoStack: [],
    rollbacks: {},
    activeRollbackId: null,
    effectOutcomes: {},
    branchNames: {},
    pendingForks: {},
  };
}

/**
 * A deep copy: `evolve` works in place on a copy that the caller owns. A state (or path) whose
 * sealed history stays in segments is copied whole, which needs every segment in memory (else
 * HistoryNotLoaded, as for any whole read of it).
 */
export function cloneState<T>(state: T): T {
  return structuredClone(withoutViews(state));
}

function withoutViews<T>(value: T): T {
  const candidate = value as Partial<SessionState> & Partial<PathState>;
  if (candidate.path !== undefined && Array.isArray(candidate.timeline)) {
    const state = value as SessionState;
    const timeline = lazyPartOf(state.timeline);
    const path = withoutViews(state.path);
    if (!timeline && path === state.path) return value;
    return { ...state, path, timeline: timeline?.kind === 'timeline' ? materialisedTimeline(timeline) : state.timeline } as T;
  }
  if (candidate.turns !== undefined && candidate.toolCalls !== undefined) {
    const path = value as PathState;
    const turns = lazyPartOf(path.turns);
    const calls = lazyPartOf(path.toolCalls);
    if (!turns && !calls) return value;
    return {
      ...path,
      turns: turns?.kind === 'turns' ? materialisedTurns(turns) : path.turns,
      toolCalls: calls?.kind === 'toolCalls' ? materialisedToolCalls(calls) : path.toolCalls,
    } as T;
  }
  return value;
}

/**
 * The entry of a state record that a caller's id, label or key names: own keys only, so that a
 * name Object.prototype has ("constructor", "toString", …) is not mistaken for an entry.
 */
export function ownEntry<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
