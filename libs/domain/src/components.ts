import { invalid } from './errors';
import type { JsonValue } from './json';
import type { SessionCommand } from './commands';

/**
 * Component state (seed 001's `IPersistentComponent`): a plugin's own state, kept in the
 * session under a reserved context-variable namespace, so it is folded into snapshots and
 * restored by time travel and rollback like every other step, and never collides with
 * another component's or the agent's own variables.
 */
export const COMPONENT_VARIABLE_PREFIX = 'component:';
export const COMPONENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function assertComponentName(name: string): void {
  if (!COMPONENT_NAME_PATTERN.test(name)) {
    throw invalid(
      'validation_failed',
      `"${name.slice(0, 140)}" is not a valid component name: use 1-128 letters, digits, "_", "-" or ".", starting with a letter or digit.`,
      [{ field: 'name', message: 'invalid component name' }],
    );
  }
}

/** The step that saves a component's state. */
export function saveComponentState(name: string, state: JsonValue): SessionCommand {
  assertComponentName(name);
  return { type: 'SetContextVariable', name: COMPONENT_VARIABLE_PREFIX + name, value: state };
}

/** Every component's state among a path's context variables, by component name. */
export function componentStates(contextVars: Record<string, JsonValue>): Record<string, JsonValue> {
  const states: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(contextVars)) {
    if (name.startsWith(COMPONENT_VARIABLE_PREFIX)) states[name.slice(COMPONENT_VARIABLE_PREFIX.length)] = value;
  }
  return states;
}
