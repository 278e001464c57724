/**
 * The worker thread behind ThreadItemWriter, ThreadKeywordAdmitter and ThreadEmbeddingModel
 * (loaded by tinypool from the compiled `dist/runtime/memory-thread.js`). Each thread builds,
 * from the MemoryConfig it was started with, what its role needs: a model (one intra-op thread)
 * and/or its own connection to the index; tinypool calls the exported functions by name.
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
  /**
   * `writer`: model and index, at nice 19 (stage 2, or the only stage); `keywords`: the index only,
   * at normal priority (stage 1: rows and words, no model); `embedder`: the model only (recall's questions).
   */
  role: MemoryThreadRole;
}

export type MemoryThreadRole = 'writer' | 'keywords' | 'embedder';

interface Parts {
  model: EmbeddingModel | null;
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
    // The keyword stage needs no model: it must keep up with the log, so it keeps normal priority too.
    if (role === 'keywords') return { model: null, index: vectorIndexFor(config), writer: null };
    // The indexer's thread may be given more of onnxruntime's threads (a catch-up after a burst); recall's question keeps one.
    const model = embeddingModelFor(config, { intraOpThreads: role === 'writer' ? config.indexerThreads : 1 });
    const index = role === 'writer' ? vectorIndexFor(config) : null;
    return { model, index, writer: index ? new LocalItemWriter({ model, index }) : null };
  })();
  return parts;
}

export async function open(): Promise<EmbeddingModelInfo> {
  const { model, writer } = await ready();
  if (writer) return writer.open();
  if (!model) throw new Error('The memory keyword thread has no model: open its index with openIndex(model) instead.');
  return model.info();
}

/** The keyword thread's index, opened once for the model the writer thread loaded (its tables are named after it). */
let keywordIndex: Promise<VectorIndex> | undefined;

/** The keyword thread: opens its connection to the index (nothing is returned: the index cannot cross threads). */
export async function openIndex(model: EmbeddingModelInfo): Promise<void> {
  await keywordIndexFor(model);
}

/** The keyword thread's index (opened again after tinypool restarted a crashed thread: each call names the model). */
function keywordIndexFor(model: EmbeddingModelInfo): Promise<VectorIndex> {
  keywordIndex ??= (async () => {
    const { index, model: own } = await ready();
    if (!index || own) throw new Error('Only the memory keyword thread opens an index without a model.');
    await index.open(model);
    return index;
  })();
  keywordIndex.catch(() => (keywordIndex = undefined));
  return keywordIndex;
}

/** Stage 1 in the keyword thread: the items' rows and words, committed when this resolves (the caller's checkpoint may then move). */
export async function admit({ model, items }: { model: EmbeddingModelInfo; items: readonly MemoryItem[] }): Promise<number> {
  const index = await keywordIndexFor(model);
  if (!index.admit) throw new Error('This memory index is written in one stage (Qdrant): it has no keyword stage to run in a thread.');
  return index.admit(items);
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
  const { model } = await ready();
  if (!model) throw new Error('The memory keyword thread has no model: questions are embedded by the embedder thread.');
  return model.embed(texts, options);
}

/** tinypool's teardown: closes the model and the index connection before the thread ends. */
export async function close(): Promise<void> {
  const loaded = await parts?.catch(() => undefined);
  parts = undefined;
  keywordIndex = undefined;
  await loaded?.model?.close();
  await loaded?.index?.close();
}
