import { describeEventStoreContract } from '../testing/event-store.contract';
import { InMemoryEventStore } from './in-memory-event-store';

describeEventStoreContract('InMemoryEventStore', async () => new InMemoryEventStore());
