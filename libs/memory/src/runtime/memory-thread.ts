/**
 * The worker thread behind ThreadItemWriter and ThreadEmbeddingModel (loaded by tinypool from
 * the compiled `dist/runtime/memory-thread.js`). Each thread builds its own model (one
 * intra-op thread) and, for the writer, its own connection to the index, from the
 * MemoryConfig it was started with; tinypool calls the exported functions by name.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { EmbeddingModel, EmbeddingModelInfo, EmbedOptions } from '../embedding-model';
import type { MemoryItem } from '../memory-item';
import { LocalItemWriter } from '../memory-item-writer';
import type { VectorIndex } from '../vector-index';
import type { MemoryConfig } from './memory-config';
import { embeddingModelFor, vectorIndexFor } from './memory-parts';

export interface MemoryThreadData {
  config: MemoryConfig;
  /** `writer`: model and index (indexing); `embedder`: the model only (recall's questions). */
  role: 'writer' | 'embedder';
}

interface Parts {
  model: EmbeddingModel;
  index: VectorIndex | null;
  writer: LocalItemWriter | null;
}

let parts: Promise<Parts> | undefined;

/**
 * Gives this thread the lowest CPU priority (nice 19), so that it runs on what the request
 * threads leave: under load the lag grows instead of the writes slowing down. Linux keeps a
 * nice value per thread (found through /proc/thread-self); elsewhere, or when not allowed,
 * the thread keeps its priority and the CPU share alone bounds it.
 */
function yieldToRequests(): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19);
  } catch {
    // Not Linux, or not permitted: the CPU share still bounds the thread.
  }
}

function ready(): Promise<Parts> {
  parts ??= (async () => {
    // tinypool is ESM-only: a native dynamic import, kept as such by the CommonJS build.
    const { default: Tinypool } = await import('tinypool');
    const { config, role } = Tinypool.workerData as MemoryThreadData;
    // Before the model loads: onnxruntime's threads inherit the priority of the thread that makes them.
    if (role === 'writer') yieldToRequests();
    // The indexer's thread may be given more of onnxruntime's threads (a catch-up after a burst); recall's question keeps one.
    const model = embeddingModelFor(config, { intraOpThreads: role === 'writer' ? config.indexerThreads : 1 });
    const index = role === 'writer' ? vectorIndexFor(config) : null;
    return { model, index, writer: index ? new LocalItemWriter({ model, index }) : null };
  })();
  return parts;
}

export async function open(): Promise<EmbeddingModelInfo> {
  const { model, writer } = await ready();
  return writer ? writer.open() : model.info();
}

export async function write(items: readonly MemoryItem[]): Promise<number> {
  const { writer } = await ready();
  if (!writer) throw new Error('This memory thread embeds questions only; items are written by the writer thread.');
  await writer.write(items);
  return items.length;
}

/** Stage 2: the oldest items the index holds without vectors, embedded and given them (read from this thread's own connection: no text crosses threads). */
export async function embedPending(limit: number): Promise<number> {
  const { writer } = await ready();
  if (!writer) throw new Error('This memory thread embeds questions only; items are written by the writer thread.');
  return writer.embedPending(limit);
}

export async function embed({ texts, options }: { texts: readonly string[]; options: EmbedOptions }): Promise<Float32Array[]> {
  return (await ready()).model.embed(texts, options);
}

/** tinypool's teardown: closes the model and the index connection before the thread ends. */
export async function close(): Promise<void> {
  const loaded = await parts?.catch(() => undefined);
  parts = undefined;
  await loaded?.model.close();
  await loaded?.index?.close();
}
