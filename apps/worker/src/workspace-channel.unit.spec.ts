import 'reflect-metadata';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionCommand } from '@rewind/domain';
import type { Caller, WriteOptions } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SubscriptionHub } from '@rewind/event-store/subscriptions';
import type { SessionCommandDispatch } from '@rewind/messaging';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { createSessionRuntime } from '@rewind/sagas';
import { startWorkerApplication, type WorkerApplication } from './worker-application';
import { recordedCallOf, WorkspaceCommandDispatch } from './workspace-channel';
import { openWorkspaceChannel, type WorkspaceChannel } from '@rewind/sagas/workspace';

const caller: Caller = { tenantId: 'acme', actor: 'signing-key:k1' };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The worker's dispatch over an in-memory runtime, the real application handlers and a real folder; `crashOn` fails one step once. */
async function workerWithWorkspace() {
  const base = mkdtempSync(join(tmpdir(), 'rewind-ws-dispatch-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'ws');
  mkdirSync(root);
  const store = new InMemoryEventStore();
  // As in the worker: the saga follows the log in the process's hub, woken by the commits.
  const runtime = createSessionRuntime(store, { snapshotEvery: 0, bus: new InProcessMessageBus(), hub: new SubscriptionHub(store) });
  runtime.rollbacks!.start();
  cleanups.push(() => runtime.rollbacks!.stop());
  const application: WorkerApplication = await startWorkerApplication(runtime);
  cleanups.push(() => application.context.close());
  const channel: WorkspaceChannel = openWorkspaceChannel({ root, blobDir: undefined, retentionMs: 0 }, runtime.inline, () => undefined);
  cleanups.push(() => channel.stop());
  const crashes = new Set<string>();
  const crashing: SessionCommandDispatch = {
    startSession: (c, input, options) => application.dispatch.startSession(c, input, options),
    planHeadMove: (c, id, move) => application.dispatch.planHeadMove(c, id, move),
    executeSteps: (c, id, steps, options) => application.dispatch.executeSteps(c, id, steps, options),
    execute: (c, id, command: SessionCommand, options: WriteOptions) => {
      if (crashes.delete(command.type)) return Promise.reject(new Error(`worker stopped before ${command.type}`));
      return application.dispatch.execute(c, id, command, options);
    },
  };
  const dispatch = new WorkspaceCommandDispatch(
    crashing,
    channel.files,
    recordedCallOf((c, id) => runtime.sessions.getState(c, id)),
  );
  await dispatch.startSession(caller, { sessionId: 's' }, {});
  /** One Kafka command (its commandId gives its idempotency key, as the consumer does). */
  const send = (commandId: string, toolCallId: string, input: { path: string; content: string | null }) =>
    dispatch.execute(caller, 's', { type: 'StartToolCall', toolCallId, tool: 'workspace.file', input }, { commandId, idempotencyKey: `cmd:${commandId}` });
  // Each tenant's changes live in its own folder under the root.
  const tenantRoot = join(root, caller.tenantId);
  mkdirSync(tenantRoot, { recursive: true });
  return { root: tenantRoot, base: root, runtime, dispatch, send, crashOnce: (type: SessionCommand['type']) => crashes.add(type) };
}

describe('the workspace dispatch (the worker’s edge for workspace changes)', () => {
  it('finishes a change whose worker stopped before completing it, with the previous content it recorded, and a rollback restores it', async () => {
    const { root, runtime, send, crashOnce } = await workerWithWorkspace();
    writeFileSync(join(root, 'notes.md'), 'original');
    const start = (await runtime.sessions.getState(caller, 's')).head;
    crashOnce('CompleteToolCall');
    await expect(send('c1', 'call-1', { path: 'notes.md', content: 'edited' })).rejects.toThrow('worker stopped before CompleteToolCall');
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('edited');

    const redelivered = await send('c1', 'call-1', { path: 'notes.md', content: 'edited' });
    expect(redelivered.duplicate).toBe(false);
    const call = (await runtime.sessions.getState(caller, 's')).path.toolCalls['call-1']!;
    expect(call.status).toBe('succeeded');
    expect(call.input).toEqual(call.output);

    await runtime.sessions.execute(caller, 's', { type: 'MoveHead', kind: 'rollback', toVersion: start });
    await runtime.rollbacks!.waitFor(await runtime.sessions.repository.store.lastPosition(), 10_000);
    await runtime.saga.drain();
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('original');
  });

  it('a redelivered command that already finished changes nothing, even after later changes to the file', async () => {
    const { root, send } = await workerWithWorkspace();
    await send('c1', 'call-1', { path: 'notes.md', content: 'first' });
    await send('c2', 'call-2', { path: 'notes.md', content: 'second' });
    const again = await send('c1', 'call-1', { path: 'notes.md', content: 'first' });
    expect(again.duplicate).toBe(true);
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('second');
  });

  it('keeps each tenant in its own folder, and records each change with the worker’s proof', async () => {
    const { root, base, runtime, dispatch, send } = await workerWithWorkspace();
    writeFileSync(join(root, 'notes.md'), 'acme’s');
    const globex: Caller = { tenantId: 'globex', actor: 'signing-key:k2' };
    await dispatch.startSession(globex, { sessionId: 's' }, {});
    await dispatch.execute(
      globex,
      's',
      { type: 'StartToolCall', toolCallId: 'g1', tool: 'workspace.file', input: { path: 'notes.md', content: 'globex’s' } },
      {},
    );
    expect(readFileSync(join(base, 'globex', 'notes.md'), 'utf8')).toBe('globex’s');
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('acme’s');
    await send('c1', 'call-1', { path: 'notes.md', content: 'edited' });
    const input = (await runtime.sessions.getState(caller, 's')).path.toolCalls['call-1']!.input as Record<string, string>;
    expect(input).toEqual({
      path: 'notes.md',
      previous: expect.stringMatching(/^[0-9a-f]{64}$/),
      next: expect.stringMatching(/^[0-9a-f]{64}$/),
      proof: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('refuses a workspace change in a batch of steps, and one on a worker without a workspace, saying what to do', async () => {
    const { dispatch } = await workerWithWorkspace();
    const change: SessionCommand = { type: 'StartToolCall', toolCallId: 'c', tool: 'workspace.file', input: { path: 'a', content: 'x' } };
    await expect(dispatch.executeSteps(caller, 's', [{ type: 'RecordMessage', role: 'user', content: 'hi' }, change], {})).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'payload.steps[1]' }],
    });
    const unconfigured = new WorkspaceCommandDispatch({} as SessionCommandDispatch, null, async () => undefined);
    await expect(unconfigured.execute(caller, 's', change, {})).rejects.toMatchObject({
      code: 'workspace_not_configured',
      message: expect.stringContaining('REWIND_WORKSPACE_ROOT'),
    });
  });
});
