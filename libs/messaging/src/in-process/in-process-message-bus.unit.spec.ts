import { randomUUID } from 'node:crypto';
import { describeMessageBusContract } from '../testing/message-bus.contract';
import { InProcessMessageBus } from './in-process-message-bus';

describeMessageBusContract(
  'InProcessMessageBus',
  async () => new InProcessMessageBus(),
  async () => `topic-${randomUUID()}`,
);
