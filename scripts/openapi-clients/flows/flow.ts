/**
 * The flow every generated client runs (see ../run.sh), here with the typescript-fetch client:
 * copied next to the generated sources and compiled with them. Reads REWIND_URL and
 * REWIND_ADMIN_KEY; throws (exit 1) on the first thing that is not as documented.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Configuration,
  KeysApi,
  ResponseError,
  SessionsApi,
  StepsApi,
  TimeTravelApi,
  type ErrorResponse,
  type HeadMoveAnswer,
  ErrorResponseFromJSON,
} from './index';

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`flow (typescript-fetch): ${what}`);
}

/** The refusal a call answered with, typed by the generated model. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; body: ErrorResponse }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ResponseError) return { status: error.response.status, body: ErrorResponseFromJSON(await error.response.json()) };
    throw error;
  }
  throw new Error('flow (typescript-fetch): the call succeeded but should have been refused');
}

/** A compensator: answers every POST, and remembers what it was asked. */
async function startCompensator(): Promise<{ url: string; calls: { path: string; idempotencyKey: string | undefined }[]; close: () => void }> {
  const calls: { path: string; idempotencyKey: string | undefined }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    request.resume();
    request.on('end', () => {
      calls.push({ path: request.url ?? '', idempotencyKey: request.headers['idempotency-key'] as string | undefined });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"cancelled":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => server.close() };
}

async function main(): Promise<void> {
  const basePath = process.env.REWIND_URL!;
  const compensator = await startCompensator();
  try {
    // An admin key makes a write key; the flow runs with that one.
    const admin = new KeysApi(new Configuration({ basePath, accessToken: process.env.REWIND_ADMIN_KEY }));
    const created = await admin.createApiKey({ createApiKeyDto: { name: 'openapi-clients flow (typescript-fetch)', scopes: ['write', 'read'] } });
    check(created.key.startsWith('rwd_') && created.record.scopes.includes('write'), 'createApiKey answers the secret and the record');
    const configuration = new Configuration({ basePath, accessToken: created.key });
    const sessions = new SessionsApi(configuration);
    const steps = new StepsApi(configuration);
    const timeTravel = new TimeTravelApi(configuration);

    const id = `flow-ts-${Date.now().toString(36)}`;
    const started = await sessions.startSession({ startSessionDto: { sessionId: id } });
    check(started.sessionId === id, 'startSession');
    const asked = await steps.recordMessage({ id, recordMessageDto: { role: 'user', content: 'Book a hotel in Lisbon.' } });
    await steps.createCheckpoint({ id, createCheckpointDto: { label: 'before-booking' } });
    const batch = await steps.recordSteps({
      id,
      recordStepsDto: {
        steps: [
          { kind: 'message', role: 'agent', content: 'Booking the Alfama Inn.' },
          {
            kind: 'tool-call',
            toolCallId: 'hotel-1',
            tool: 'book_hotel',
            input: { city: 'Lisbon' },
            effect: {
              kind: 'compensable',
              compensation: { channel: 'http', target: `${compensator.url}/bookings/{{output.bookingId}}/cancel` },
              retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, timeoutMs: 5000 },
            },
          },
          { kind: 'tool-result', toolCallId: 'hotel-1', output: { bookingId: 'B-42' } },
          { kind: 'memory', key: 'hotel', value: 'B-42' },
        ],
      },
    });
    check(batch.events.length === 4, `recordSteps wrote 4 events, not ${batch.events.length}`);
    const now = await sessions.getSession({ id });
    check(now.memory.hotel === 'B-42', 'the memory step kept its value');
    check(
      now.toolCalls[0]?.effect.kind === 'compensable' && now.toolCalls[0].status === 'succeeded',
      'the tool-call step kept its effect, the result step its output',
    );

    const past = await sessions.getSessionState({ id, at: asked.stepVersion! });
    check(past.toolCalls.length === 0 && past.memory.hotel === undefined && past.conversation.turns.length === 1, 'state at a past version');

    const plan: HeadMoveAnswer = await timeTravel.undo({ id, undoDto: { dryRun: true } });
    check(plan.outcome === 'dry_run' && plan.plan.kind === 'undo', 'an undo dry run answers a plan');
    const undone = await timeTravel.undo({ id, undoDto: {} });
    check(undone.outcome === 'applied' && undone.head < batch.head, 'the undo moved the head back');
    check((await sessions.getSession({ id })).memory.hotel === undefined, 'the undo removed the memory write');

    const rolledBack = await timeTravel.rollback({ id, rollbackDto: { toCheckpoint: 'before-booking', waitMs: 10000 } });
    check(rolledBack.outcome === 'applied' && rolledBack.rollback?.status === 'completed', 'the rollback to the checkpoint completed');
    check(
      compensator.calls.length === 1 && compensator.calls[0]!.path === '/bookings/B-42/cancel' && !!compensator.calls[0]!.idempotencyKey,
      `the compensator was called once with an Idempotency-Key: ${JSON.stringify(compensator.calls)}`,
    );

    const redo = await refusal(timeTravel.redo({ id, redoDto: {} }));
    check(
      redo.status === 409 && redo.body.error.code === 'compensated_effects_on_path',
      `a redo over a compensated effect is refused: ${JSON.stringify(redo)}`,
    );

    const context = await sessions.getContext({ id });
    check(
      context.items.length === 1 && context.items[0]!.kind === 'message' && context.items[0]!.content === 'Book a hotel in Lisbon.',
      'the context is the head path',
    );
    const timeline = await sessions.getTimeline({ id });
    check(timeline.head === rolledBack.head && timeline.rollbacks.length === 2 && timeline.nodes.length >= 6, 'the timeline shows both moves');

    const missing = await refusal(sessions.getSession({ id: `${id}-missing` }));
    check(missing.status === 404 && missing.body.error.code === 'session_not_found', `an unknown session is a typed 404: ${JSON.stringify(missing)}`);
    const conflict = await refusal(sessions.startSession({ startSessionDto: { sessionId: id } }));
    check(conflict.status === 409 && conflict.body.error.code === 'session_exists', `a second start is a typed 409: ${JSON.stringify(conflict)}`);
    // A thought is a step the context leaves out unless asked for: the union picks ContextThought by its kind.
    await steps.recordThought({ id, recordThoughtDto: { content: 'The user wants Lisbon.', steps: ['city: Lisbon'] } });
    check(
      (await sessions.getContext({ id })).items.every((item) => item.kind !== 'thought'),
      'the context leaves thoughts out',
    );
    const withThoughts = await sessions.getContext({ id, includeThoughts: true });
    const thought = withThoughts.items.find((item) => item.kind === 'thought');
    check(thought?.kind === 'thought' && thought.steps[0] === 'city: Lisbon', `asked for, the thought is in the context: ${JSON.stringify(withThoughts)}`);
    console.log('flow (typescript-fetch): passed');
  } finally {
    compensator.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
