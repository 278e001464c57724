/**
 * A plain TypeScript agent loop on the library: each turn is recorded, tools are registered by
 * name with their undo and retry policy, a plugin keeps its own state, and a bad turn is undone.
 * Run: npx vitest run test/examples
 */
import { Rewind, ToolCallError } from '@rewind/embedded';

interface Plan {
  tool: 'search_flights' | 'book_flight' | null;
  input: { to: string };
  reply: string;
}

/** Stands in for the model: decides the next action from the user's words. */
function decide(text: string): Plan {
  const to = /to (\w+)/.exec(text)?.[1] ?? 'Lisbon';
  if (text.startsWith('find')) return { tool: 'search_flights', input: { to }, reply: `Here are flights to ${to}.` };
  if (text.startsWith('book')) return { tool: 'book_flight', input: { to }, reply: `Your flight to ${to} is booked.` };
  return { tool: null, input: { to }, reply: 'How can I help?' };
}

export async function main(dataDir: string, log: (line: string) => void = console.log): Promise<{ booked: string[]; rewind: Rewind }> {
  const booked: string[] = [];
  let flakyAirline = 1; // the airline's first answer is a 503
  const rewind = Rewind.open({ dataDir });
  rewind.tool<{ to: string }, string[]>('search_flights', { run: ({ to }) => [`TP-${to}`] });
  rewind.tool<{ to: string }, { ticket: string }>('book_flight', {
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    run: ({ to }) => {
      if (flakyAirline-- > 0) throw new ToolCallError('airline answered 503', true);
      booked.push(to);
      return { ticket: `T-${to}` };
    },
    undo: ({ input }) => void booked.splice(booked.indexOf(input.to), 1),
  });
  const preferences = { seat: 'aisle' };
  rewind.registerComponent({
    name: 'preferences',
    getState: () => ({ ...preferences }),
    restoreState: (saved) => void Object.assign(preferences, saved ?? {}),
  });

  const session = await rewind.startSession('flight-help');
  for (const text of ['find flights to Porto', 'book a flight to Porto', 'book a flight to Madrid']) {
    await session.checkpoint(`before: ${text}`);
    await session.say('user', text);
    const plan = decide(text);
    if (plan.tool) await session.call(plan.tool, plan.input);
    await session.say('agent', plan.reply);
    log(`${text} -> ${plan.reply}`);
    preferences.seat = 'window';
  }
  log(`booked: ${booked.join(', ')}`);
  await session.rollbackTo('before: book a flight to Madrid'); // the user did not mean Madrid
  log(`after the rollback: ${booked.join(', ')}; seat ${preferences.seat}`);
  const calls = (await session.state()).toolCalls.map((c) => `${c.tool} x${c.attempts}`);
  log(`tool calls on the path: ${calls.join(', ')}`);
  return { booked, rewind };
}
