import fc from 'fast-check';
import type { SessionCommand } from '../commands';
import type { EffectKind } from '../effects';
import type { SessionState } from '../state';

/**
 * A random intent, turned into a concrete command against the current state (so that
 * most commands are valid, and some are deliberately not).
 */
export type Intent =
  | { kind: 'user' | 'agent'; text: string }
  | { kind: 'tool'; effect: EffectKind; finish: 'succeed' | 'fail' | 'leave'; confirmed: boolean }
  | { kind: 'memory'; key: string; value: number }
  | { kind: 'erase'; key: string }
  | { kind: 'var'; name: string; value: string }
  | { kind: 'push'; title: string }
  | { kind: 'pop' }
  | { kind: 'interrupt'; text: string }
  | { kind: 'thought'; text: string; steps: string[] }
  | { kind: 'checkpoint'; label: string }
  | { kind: 'rollback'; pick: number; acknowledge: boolean }
  | { kind: 'fork'; pick: number; text: string; key: string; name: string | null }
  | { kind: 'toCheckpoint'; label: string }
  | { kind: 'undo'; steps: number }
  | { kind: 'redo' };

const key = fc.constantFrom('a', 'b', 'c', 'd');
export const intentArb: fc.Arbitrary<Intent> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('user' as const, 'agent' as const), text: fc.string({ maxLength: 8 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('tool' as const),
      effect: fc.constantFrom<EffectKind>('none', 'none', 'irreversible'),
      finish: fc.constantFrom('succeed' as const, 'fail' as const, 'leave' as const),
      confirmed: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('memory' as const), key, value: fc.integer() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('var' as const), name: key, value: fc.string({ maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('push' as const), title: fc.string({ maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pop' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('interrupt' as const), text: fc.string({ maxLength: 6 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('thought' as const),
      text: fc.string({ maxLength: 8 }),
      steps: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('checkpoint' as const), label: fc.constantFrom('x', 'y', 'z') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rollback' as const), pick: fc.nat(), acknowledge: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fork' as const),
      pick: fc.nat(),
      text: fc.string({ maxLength: 6 }),
      key,
      name: fc.option(fc.constantFrom('plan B', 'vegan'), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('toCheckpoint' as const), label: fc.constantFrom('x', 'y', 'z') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('undo' as const), steps: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redo' as const) }) },
);

let callCounter = 0;

/** The commands an intent becomes; a tool intent is a start and maybe a finish. */
export function commandsFor(intent: Intent, state: SessionState): SessionCommand[] {
  const lastTurn = state.path.turns[state.path.turns.length - 1];
  switch (intent.kind) {
    case 'user':
    case 'agent':
      return [{ type: 'RecordMessage', role: intent.kind, content: intent.text }];
    case 'tool': {
      const toolCallId = `call-${++callCounter}`;
      const start: SessionCommand = {
        type: 'StartToolCall',
        toolCallId,
        tool: 'search',
        input: { q: toolCallId },
        effect: { kind: intent.effect },
        confirmed: intent.confirmed,
      };
      if (intent.finish === 'leave') return [start];
      return [
        start,
        intent.finish === 'succeed' ? { type: 'CompleteToolCall', toolCallId, output: { ok: true } } : { type: 'FailToolCall', toolCallId, error: 'boom' },
      ];
    }
    case 'memory':
      return [{ type: 'WriteMemory', key: intent.key, value: intent.value }];
    case 'erase':
      return [{ type: 'EraseMemory', key: intent.key }];
    case 'var':
      return [{ type: 'SetContextVariable', name: intent.name, value: intent.value }];
    case 'push':
      return [{ type: 'PushTask', title: intent.title }];
    case 'pop':
      return [{ type: 'PopTask' }];
    case 'interrupt':
      return [{ type: 'InterruptTurn', turnId: lastTurn?.turnId ?? 'none', partialContent: intent.text }];
    case 'thought':
      return [{ type: 'RecordThought', content: intent.text, steps: intent.steps }];
    case 'checkpoint':
      return [{ type: 'CreateCheckpoint', label: intent.label }];
    case 'rollback':
      return [{ type: 'MoveHead', kind: 'rollback', toVersion: 1 + (intent.pick % Math.max(1, state.version)), acknowledgeIrreversible: intent.acknowledge }];
    case 'fork':
      return [
        {
          type: 'MoveHead',
          kind: 'rollback',
          toVersion: 1 + (intent.pick % Math.max(1, state.version)),
          acknowledgeIrreversible: true,
          then: [
            { type: 'RecordMessage', role: 'user', content: intent.text },
            { type: 'WriteMemory', key: intent.key, value: intent.text },
          ],
          ...(intent.name !== null ? { branchName: intent.name } : {}),
        },
      ];
    case 'toCheckpoint':
      return [{ type: 'MoveHead', kind: 'rollback', toCheckpoint: intent.label, acknowledgeIrreversible: true }];
    case 'undo':
      return [{ type: 'MoveHead', kind: 'undo', steps: intent.steps, acknowledgeIrreversible: true }];
    case 'redo':
      return [{ type: 'MoveHead', kind: 'redo', acknowledgeIrreversible: true }];
  }
}
