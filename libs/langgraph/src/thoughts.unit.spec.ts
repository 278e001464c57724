import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Rewind } from '@rewind/embedded';
import { RewindCheckpointSaver } from './rewind-saver';
import { sessionIdOfThread } from './thread-id';
import { reasoningOf } from './thoughts';

describe('reasoningOf: the reasoning an AI message carries', () => {
  it('reads the shapes chat models give it, and nothing else', () => {
    expect(reasoningOf(new AIMessage({ content: 'Lisbon.', additional_kwargs: { reasoning_content: 'May is busy.' } }))).toEqual({
      content: 'May is busy.',
      steps: [],
    });
    expect(
      reasoningOf(
        new AIMessage({
          content: 'ok',
          additional_kwargs: {
            reasoning: {
              summary: [
                { type: 'summary_text', text: 'dates first' },
                { type: 'summary_text', text: 'then hotels' },
              ],
            },
          },
        }),
      ),
    ).toEqual({ content: 'dates first\nthen hotels', steps: ['dates first', 'then hotels'] });
    expect(
      reasoningOf(
        new AIMessage({
          content: [
            { type: 'thinking', thinking: 'Anthropic style.' },
            { type: 'reasoning', reasoning: 'Standard block.' },
            { type: 'text', text: 'The answer.' },
          ],
        }),
      ),
    ).toEqual({ content: 'Anthropic style.\n\nStandard block.', steps: [] });
    expect(reasoningOf(new AIMessage('no reasoning'))).toBeNull();
    expect(reasoningOf(new HumanMessage({ content: 'hi', additional_kwargs: { reasoning_content: 'not an AI message' } }))).toBeNull();
    for (const odd of [null, 1, 'text', [], { type: 'ai', content: null }, { type: 'ai', additional_kwargs: { reasoning_content: '   ' } }])
      expect(reasoningOf(odd)).toBeNull();
  });
});

describe('the saver records the reasoning of new AI messages as Rewind thoughts', () => {
  let rewind: Rewind;
  beforeEach(() => {
    rewind = Rewind.inMemory();
  });
  afterEach(() => rewind.close());

  /** An agent (no model needed) that thinks before it answers. */
  const graphOn = (saver: RewindCheckpointSaver) =>
    new StateGraph(MessagesAnnotation)
      .addNode('agent', (state: typeof MessagesAnnotation.State): { messages: BaseMessage[] } => {
        const asked = String(state.messages[state.messages.length - 1]!.content);
        return { messages: [new AIMessage({ content: `Answer to ${asked}`, additional_kwargs: { reasoning_content: `Thinking about ${asked}` } })] };
      })
      .addEdge(START, 'agent')
      .addEdge('agent', END)
      .compile({ checkpointer: saver });
  const thread = { configurable: { thread_id: 'thinker' }, durability: 'sync' as const };

  it('one thought per new AI message, before the checkpoint that holds it; never in the context; the graph reads back as it wrote', async () => {
    const saver = new RewindCheckpointSaver(rewind);
    const graph = graphOn(saver);
    await graph.invoke({ messages: [new HumanMessage('Lisbon?')] }, thread);
    const firstTurn = (await graph.getState(thread)).config;
    await graph.invoke({ messages: [new HumanMessage('Porto?')] }, thread);

    const session = rewind.session(sessionIdOfThread('thinker'));
    const state = await session.state();
    expect(state.thoughts.map((t) => t.content)).toEqual(['Thinking about Lisbon?', 'Thinking about Porto?']);
    expect((await session.context()).items.some((i) => i.kind === 'thought')).toBe(false);
    expect((await session.context({ includeThoughts: true })).items.filter((i) => i.kind === 'thought')).toHaveLength(2);
    // Read back through a fresh saver: the thoughts in the stream do not disturb the checkpoints.
    const fresh = graphOn(new RewindCheckpointSaver(rewind));
    expect((await fresh.getState(thread)).values.messages.map((m: BaseMessage) => String(m.content))).toEqual([
      'Lisbon?',
      'Answer to Lisbon?',
      'Porto?',
      'Answer to Porto?',
    ]);

    // Rolled back to the first turn, the second thought is off the path with the answer it led to.
    await saver.rollbackTo(firstTurn);
    expect((await session.state()).thoughts.map((t) => t.content)).toEqual(['Thinking about Lisbon?']);
    expect((await graph.getState(thread)).values.messages).toHaveLength(2);
  });

  it('records none with thoughtsChannel: null', async () => {
    const graph = graphOn(new RewindCheckpointSaver(rewind, undefined, { thoughtsChannel: null }));
    await graph.invoke({ messages: [new HumanMessage('Lisbon?')] }, thread);
    expect((await rewind.session(sessionIdOfThread('thinker')).state()).thoughts).toEqual([]);
  });
});
