import { describe, expect, it } from 'vitest';
import { langGraphNodeOf } from './session-views';

describe('the LangGraph node that wrote a step', () => {
  it("is read from the saver's pending writes of a node's task", () => {
    expect(langGraphNodeOf({ name: 'langgraph.writes/', value: { task: 't1', path: '~__pregel_pull, agent', writes: [] } })).toBe('agent');
    expect(langGraphNodeOf({ name: 'langgraph.writes/inner', value: { path: '~__pregel_pull, call_tool' } })).toBe('call_tool');
  });

  it('is null for any other step, or a task that is not a node of its own', () => {
    expect(langGraphNodeOf({ name: 'langgraph.checkpoint/', value: { path: '~__pregel_pull, agent' } })).toBeNull();
    expect(langGraphNodeOf({ name: 'langgraph.writes/', value: { path: '~__pregel_push, ~__pregel_pull, agent, 0000000002, 0000000000' } })).toBeNull();
    expect(langGraphNodeOf({ name: 'langgraph.writes/', value: { path: '' } })).toBeNull();
    expect(langGraphNodeOf({ key: 'city', value: 'Lyon' })).toBeNull();
    expect(langGraphNodeOf(null)).toBeNull();
  });
});
