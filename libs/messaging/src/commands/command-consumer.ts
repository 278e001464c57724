import { LRUCache } from 'lru-cache';
import type { Caller, WriteOptions } from '@rewind/engine';
import { DEFAULT_TOPICS, type RewindTopics } from '../kafka/kafka-config';
import type { Logger } from '@rewind/config';
import { silentLogger } from '../kafka/logger';
import type { BusMessage, DeliveredMessage, MessageBus, Subscription } from '../message-bus';
import type { KafkaSigningSecretStore } from '../signing/signing-secret-store';
import type { SessionCommandDispatch } from './command-dispatch';
import { classifyCommandError, CommandRejection } from './command-errors';
import { deadLetterMessage, resultMessage, type CommandResultMessage, type CommandStatus } from './command-outcome';
import { decodeCommand, peekCommandId, type DecodedCommand } from './decode-command';

export interface CommandConsumerOptions {
  bus: MessageBus;
  /** The same command and query handlers the HTTP API uses. */
  dispatch: SessionCommandDispatch;
  signingKeys: KafkaSigningSecretStore;
  topics?: Partial<Pick<RewindTopics, 'commands' | 'commandResults' | 'commandsDlq'>>;
  /** Consumer group: every worker in the group shares the command partitions (default `rewind-commands`). */
  groupId?: string;
  /** Tries for a command that fails transiently (store unreachable...) before it goes to the DLQ (default 5). */
  maxAttempts?: number;
  logger?: Logger;
  /** Called after a command wrote events (e.g. to wake the relay in the same process instead of waiting for its next poll). */
  onApplied?: () => void;
  /** Told about each command copied to the DLQ, with its result status (metrics). */
  onDeadLettered?: (status: string) => void;
}

interface Outcome {
  result: CommandResultMessage;
  deadLetter?: BusMessage;
}

export interface CommandConsumerStats {
  applied: number;
  duplicate: number;
  rejected: number;
}

/**
 * Reads command envelopes from `rewind.commands` and dispatches them to the application's
 * command handlers, exactly as HTTP does.
 *
 * - At least once in, applied once: the idempotency key `cmd:<commandId>` is claimed
 *   atomically with the append, so a redelivered command answers `duplicate`.
 * - Every message gets one outcome on `rewind.command-results`; a malformed,
 *   unauthenticated or rejected one is also copied to `rewind.commands.dlq` with the reason
 *   in headers. The handler then resolves, so a poison message never blocks its partition.
 * - A transient failure throws: the bus delivers the message again after a backoff (only
 *   its partition waits). After `maxAttempts` it is dead-lettered as `retries_exhausted`.
 * - If publishing the outcome fails (broker down), the computed outcome is kept and
 *   published on the redelivery, so the first answer is the one users see.
 */
export class CommandConsumer {
  private readonly topics: Pick<RewindTopics, 'commands' | 'commandResults' | 'commandsDlq'>;
  private readonly logger: Logger;
  private readonly maxAttempts: number;
  private readonly attempts = new LRUCache<string, number>({ max: 10_000 });
  /** Outcomes not yet published; the oldest go first past the bound (partitions that moved to another worker). */
  private readonly pending = new LRUCache<string, Outcome>({ max: 10_000 });
  private subscription: Subscription | undefined;
  readonly stats: CommandConsumerStats = { applied: 0, duplicate: 0, rejected: 0 };

  constructor(private readonly options: CommandConsumerOptions) {
    this.topics = {
      commands: DEFAULT_TOPICS.commands,
      commandResults: DEFAULT_TOPICS.commandResults,
      commandsDlq: DEFAULT_TOPICS.commandsDlq,
      ...options.topics,
    };
    this.logger = options.logger ?? silentLogger;
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  get groupId(): string {
    return this.options.groupId ?? 'rewind-commands';
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    // From the beginning for a new group: commands sent before the first worker started still count.
    this.subscription = await this.options.bus.subscribe(this.topics.commands, { groupId: this.groupId, fromBeginning: true }, (m) => this.handle(m));
    this.logger.log(
      `Consuming commands from "${this.topics.commands}" as group "${this.groupId}"; outcomes go to "${this.topics.commandResults}", refused commands to "${this.topics.commandsDlq}".`,
    );
  }

  /** Finishes the command in flight, commits, and leaves the group. */
  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.close();
  }

  /** Processes one command message; resolves once its outcome is published. */
  async handle(message: DeliveredMessage): Promise<void> {
    const position = `${message.topic}/${message.partition}/${message.offset}`;
    let outcome = this.pending.get(position);
    if (!outcome) {
      outcome = await this.process(message, position); // throws on a transient failure: redelivered later
      this.pending.set(position, outcome);
    }
    if (outcome.deadLetter) {
      await this.options.bus.publish(this.topics.commandsDlq, [outcome.deadLetter]);
      this.options.onDeadLettered?.(outcome.result.status);
    }
    await this.options.bus.publish(this.topics.commandResults, [resultMessage(outcome.result)]);
    this.pending.delete(position);
    this.attempts.delete(position);
    this.stats[outcome.result.status]++;
  }

  private async process(message: DeliveredMessage, position: string): Promise<Outcome> {
    const source = { topic: message.topic, partition: message.partition, offset: message.offset };
    let decoded: DecodedCommand | undefined;
    try {
      decoded = await decodeCommand(message.value, message.headers, this.options.signingKeys);
      const { status, result } = await this.execute(decoded);
      if (status === 'applied') this.options.onApplied?.();
      this.logger.debug?.(`Command ${decoded.envelope.commandId} (${decoded.envelope.type}) on session "${decoded.envelope.sessionId}": ${status}.`);
      return { result: { commandId: decoded.envelope.commandId, status, result, source } };
    } catch (error) {
      const commandId = decoded?.envelope.commandId ?? peekCommandId(message.value);
      const classified = classifyCommandError(error, {
        commandId: commandId ?? '',
        ...(decoded?.envelope.expectedVersion !== undefined ? { expectedVersion: decoded.envelope.expectedVersion } : {}),
      });
      const attempt = (this.attempts.get(position) ?? 0) + 1;
      let rejection: CommandRejection;
      if (classified.permanent) {
        rejection = classified.rejection;
      } else if (attempt < this.maxAttempts) {
        this.attempts.set(position, attempt);
        this.logger.warn(
          `Command ${commandId ?? '(no commandId)'} at ${position} failed (attempt ${attempt} of ${this.maxAttempts}): ${classified.message}. ` +
            'It will be tried again after a backoff (a retry never applies it twice).',
        );
        throw error;
      } else {
        rejection = new CommandRejection(
          'retries_exhausted',
          `The command failed ${attempt} times on an error that was expected to pass: ${classified.message}. ` +
            'Fix the cause (see the worker log), then send the message from the DLQ again: with the same commandId it is applied at most once, so this is safe even if it was applied before the failure.',
          [],
          503,
        );
        this.logger.error(`Command ${commandId ?? '(no commandId)'} at ${position} is dead-lettered after ${attempt} attempts: ${classified.message}.`);
      }
      const body = rejection.body();
      if (rejection.code !== 'retries_exhausted') {
        this.logger.warn(
          `Command ${commandId ?? '(no commandId)'} at ${position} was refused (${body.code}): ${body.message} It was copied to "${this.topics.commandsDlq}".`,
        );
      }
      return { result: { commandId, status: 'rejected', error: body, source }, deadLetter: deadLetterMessage(message, body, attempt) };
    }
  }

  private async execute({ envelope, action, key }: DecodedCommand): Promise<{ status: Exclude<CommandStatus, 'rejected'>; result: unknown }> {
    const caller: Caller = { tenantId: envelope.tenantId, actor: `signing-key:${key.keyId}` };
    const options: WriteOptions = {
      idempotencyKey: `cmd:${envelope.commandId}`,
      commandId: envelope.commandId,
      ...(envelope.expectedVersion !== undefined ? { expectedVersion: envelope.expectedVersion } : {}),
    };
    switch (action.kind) {
      case 'plan':
        return { status: 'applied', result: { dryRun: true, plan: await this.options.dispatch.planHeadMove(caller, envelope.sessionId, action.command) } };
      case 'start': {
        const result = await this.options.dispatch.startSession(caller, action.input, options);
        return { status: result.duplicate ? 'duplicate' : 'applied', result };
      }
      case 'execute': {
        const result = await this.options.dispatch.execute(caller, envelope.sessionId, action.command, options);
        return { status: result.duplicate ? 'duplicate' : 'applied', result };
      }
      case 'steps': {
        const result = await this.options.dispatch.executeSteps(caller, envelope.sessionId, action.commands, options);
        return { status: result.duplicate ? 'duplicate' : 'applied', result };
      }
    }
  }
}
