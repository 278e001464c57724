import type { JsonValue } from '@rewind/domain';

/**
 * A plugin that keeps its own state in the session (seed 001's `IPersistentComponent`):
 * `getState` is saved (namespaced by `name`) at each checkpoint and by `saveComponents()`;
 * after a rollback, undo or `restoreComponents(at)`, `restoreState` gets the state the
 * session had then (`undefined` when the component had saved none yet).
 */
export interface ComponentDefinition<S extends JsonValue = JsonValue> {
  name: string;
  getState: () => S | Promise<S>;
  restoreState: (state: S | undefined) => void | Promise<void>;
  /** seed 001's `should_persist()`: false keeps the component out of the session entirely. Default true. */
  persist?: boolean | (() => boolean);
}

export function persists(component: Pick<ComponentDefinition, 'persist'>): boolean {
  return typeof component.persist === 'function' ? component.persist() : component.persist !== false;
}
