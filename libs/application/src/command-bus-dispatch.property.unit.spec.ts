import 'reflect-metadata';
import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '@rewind/domain';
import { commandsFor, intentArb } from '@rewind/domain/testing';
import { SessionCommands, SessionQueries, SessionRepository, SessionService, sessionStreamId, ToolRegistry, type WriteResult } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { ApplicationModule } from './application.module';
import { CommandBusDispatch } from './command-bus-dispatch';
import { RecordStepCommand } from '@rewind/engine';

const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 10));
const caller = { tenantId: 't', actor: 'tester' };

/** Same ids and clock on both sides of a comparison. */
function deterministicService(store = new InMemoryEventStore()) {
  let n = 0;
  return new SessionService(new SessionRepository(store, { snapshotEvery: 5 }), { newId: () => `id-${++n}`, now: () => new Date(0) });
}

@Module({})
class EngineModule {
  static over(sessions: SessionService, tools: ToolRegistry): DynamicModule {
    return {
      module: EngineModule,
      global: true,
      providers: [
        { provide: SessionCommands, useValue: sessions.commands },
        { provide: SessionQueries, useValue: sessions.queries },
        { provide: ToolRegistry, useValue: tools },
      ],
      exports: [SessionCommands, SessionQueries, ToolRegistry],
    };
  }
}

const contexts: INestApplicationContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

async function applicationOver(sessions: SessionService): Promise<INestApplicationContext> {
  @Module({ imports: [CqrsModule.forRoot(), EngineModule.over(sessions, new ToolRegistry(sessions.repository.store)), ApplicationModule] })
  class TestApplication {}
  const context = await NestFactory.createApplicationContext(TestApplication, { logger: false, abortOnError: false });
  contexts.push(context);
  return context;
}

async function outcome(write: Promise<WriteResult>): Promise<WriteResult | string> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe('commands through the CommandBus (property-based)', () => {
  it('answer and leave the state exactly as the engine called directly does, whatever the commands, one by one or as a batch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(intentArb, { minLength: 1, maxLength: 12 }), fc.boolean(), async (intents, asBatch) => {
        const viaBus = deterministicService();
        const direct = deterministicService();
        const dispatch = (await applicationOver(viaBus)).get(CommandBusDispatch);
        const both = async (send: (door: Pick<SessionService, 'startSession' | 'execute' | 'executeSteps'>) => Promise<WriteResult>) => {
          const [a, b] = [await outcome(send(dispatch)), await outcome(send(direct))];
          expect(a).toEqual(b);
        };
        await both((door) => door.startSession(caller, { sessionId: 's' }, { commandId: 'start' }));
        if (asBatch) {
          const state = await direct.getState(caller, 's');
          const steps = intents.flatMap((intent) => commandsFor(intent, state)).filter((c) => c.type !== 'MoveHead');
          if (steps.length > 0) await both((door) => door.executeSteps(caller, 's', steps, { commandId: 'batch' }));
        } else {
          let n = 0;
          for (const intent of intents) {
            for (const command of commandsFor(intent, await direct.getState(caller, 's'))) {
              const commandId = `c${++n}`;
              await both((door) => door.execute(caller, 's', command, { commandId }));
            }
          }
        }
        expect(await viaBus.getState(caller, 's')).toEqual(await direct.getState(caller, 's'));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the application commands', () => {
  it('RecordStepCommand refuses anything but a step, in the documented error shape, writing nothing', async () => {
    const store = new InMemoryEventStore();
    const sessions = deterministicService(store);
    const bus = (await applicationOver(sessions)).get(CommandBus);
    await sessions.startSession(caller, { sessionId: 's' });
    const refused = await bus.execute(new RecordStepCommand(caller, 's', { type: 'MoveHead', kind: 'undo' })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'validation', code: 'validation_failed', message: expect.stringContaining('MoveHead is not a step') });
    expect(await store.streamVersion(sessionStreamId('t', 's'))).toBe(1);
  });

  it('a saga-only command sent on a session is refused with the reason, writing nothing', async () => {
    const store = new InMemoryEventStore();
    const sessions = deterministicService(store);
    const dispatch = (await applicationOver(sessions)).get(CommandBusDispatch);
    await sessions.startSession(caller, { sessionId: 's' });
    await expect(dispatch.execute(caller, 's', { type: 'CompleteRollback', rollbackId: 's~1' }, {})).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('only the rollback saga records it'),
    });
    expect(await store.streamVersion(sessionStreamId('t', 's'))).toBe(1);
  });
});
