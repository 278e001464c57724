import type { CheckpointStore } from '@rewind/event-store/subscriptions';

/**
 * The indexer's position in the log, kept per embedding model: each model's index (its own tables or
 * collection) has read the log as far as it has, so a model whose index is new — a changed
 * REWIND_EMBEDDING_MODEL, or a new default — reads the log from the start instead of leaving the
 * history unsearchable. A position kept before this, under the plain name, is adopted by a model
 * whose index already holds items (the model that wrote them: the only one whose tables were filled).
 */
/** Where a model's position is kept: the subscription's name with the model's id (`memory-indexer@e5-small-v2-q`). */
export function modelCheckpointName(name: string, modelId: string): string {
  return `${name}@${modelId}`;
}

export class ModelCheckpoints implements CheckpointStore {
  constructor(
    private readonly inner: CheckpointStore,
    private readonly model: () => Promise<{ id: string; holdsItems: () => Promise<boolean> }>,
  ) {}

  private async key(name: string): Promise<string> {
    return modelCheckpointName(name, (await this.model()).id);
  }

  async load(name: string): Promise<number> {
    const key = await this.key(name);
    const own = await this.inner.load(key);
    if (own > 0) return own;
    const shared = await this.inner.load(name);
    if (shared === 0 || !(await (await this.model()).holdsItems())) return 0;
    await this.inner.save(key, shared);
    return shared;
  }

  async save(name: string, position: number): Promise<void> {
    await this.inner.save(await this.key(name), position);
  }

  acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.inner.acquire(name, owner, ttlMs);
  }

  release(name: string, owner: string): Promise<void> {
    return this.inner.release(name, owner);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
