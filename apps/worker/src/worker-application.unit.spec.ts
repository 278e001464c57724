import 'reflect-metadata';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it } from 'vitest';
import { GetToolQuery, RegisterToolCommand } from '@rewind/application';
import { sessionStreamId } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { createSessionRuntime } from '@rewind/sagas';
import { startWorkerApplication, type WorkerApplication } from './worker-application';

const caller = { tenantId: 'acme', actor: 'signing-key:k1' };
const opened: WorkerApplication[] = [];
afterEach(async () => {
  for (const application of opened.splice(0)) await application.context.close();
});

async function workerApplication() {
  const store = new InMemoryEventStore();
  const runtime = createSessionRuntime(store, { snapshotEvery: 0, bus: new InProcessMessageBus() });
  const application = await startWorkerApplication(runtime);
  opened.push(application);
  return { store, runtime, application };
}

describe("the worker's application context", () => {
  it("carries Kafka's commands through the application's handlers over the worker's own runtime", async () => {
    const { store, runtime, application } = await workerApplication();
    const started = await application.dispatch.startSession(caller, { sessionId: 's1', title: 'trip' }, { commandId: 'c1', idempotencyKey: 'cmd:c1' });
    expect(started).toMatchObject({ sessionId: 's1', version: 1, duplicate: false });
    // A tool registered through the CommandBus is the one the runtime's session commands see.
    await application.context.get(CommandBus).execute(new RegisterToolCommand(caller, 'book_hotel', { kind: 'irreversible' }));
    expect(await application.context.get(QueryBus).execute(new GetToolQuery('acme', 'book_hotel'))).toMatchObject({ effect: { kind: 'irreversible' } });
    const call = await application.dispatch.execute(
      caller,
      's1',
      { type: 'StartToolCall', toolCallId: 'call-1', tool: 'book_hotel', input: {}, confirmed: true },
      { commandId: 'c2' },
    );
    expect(call.version).toBe(2);
    expect((await runtime.sessions.getState(caller, 's1')).path.toolCalls['call-1']?.effect.kind).toBe('irreversible');
    // Redelivered: answered from the idempotency record, nothing written.
    expect(await application.dispatch.startSession(caller, { sessionId: 's1', title: 'trip' }, { commandId: 'c1', idempotencyKey: 'cmd:c1' })).toMatchObject({
      version: 1,
      duplicate: true,
    });
    expect(await store.streamVersion(sessionStreamId('acme', 's1'))).toBe(2);
  });

  it('refuses, as the handlers do, what no transport may send: the saga records rollback completions itself', async () => {
    const { store, application } = await workerApplication();
    await application.dispatch.startSession(caller, { sessionId: 's1' }, {});
    await expect(application.dispatch.execute(caller, 's1', { type: 'CompleteRollback', rollbackId: 's1~1' }, {})).rejects.toMatchObject({
      kind: 'validation',
      code: 'validation_failed',
    });
    expect(await store.streamVersion(sessionStreamId('acme', 's1'))).toBe(1);
  });
});
