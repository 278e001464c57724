import { validate } from '@langchain/langgraph-checkpoint-validation';
import { Rewind, RewindCheckpointSaver } from './rewind.mjs';

/** RewindCheckpointSaver (library mode), each checkpointer on a store of its own. */
validate({
  checkpointerName: 'RewindCheckpointSaver',
  createCheckpointer: () => new RewindCheckpointSaver(Rewind.inMemory()),
  destroyCheckpointer: (saver) => saver.rewind.close(),
});
