import { validate } from '@langchain/langgraph-checkpoint-validation';
import { RewindHttpCheckpointSaver, startApi } from './rewind.mjs';

/** RewindHttpCheckpointSaver against the real API, each checkpointer in a tenant of its own. */
let api;
validate({
  checkpointerName: 'RewindHttpCheckpointSaver',
  beforeAll: async () => {
    api = await startApi();
  },
  beforeAllTimeout: 60_000,
  afterAll: () => api?.stop(),
  createCheckpointer: async () => new RewindHttpCheckpointSaver(await api.freshTenant()),
});
