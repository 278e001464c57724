import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiReranker } from './openai-reranker';

// No re-ranking model runs here: a loopback HTTP server speaks the `/rerank` protocol so that the
// adapter's request, its parsing, its timeout and its fallback are exercised over real HTTP.
describe('OpenAI-compatible re-ranker', () => {
  let server: Server;
  let url: string;
  let lastBody: { model: string; query: string; documents: string[] } | undefined;
  let lastPath: string | undefined;
  let behaviour: (res: ServerResponse) => void = () => {};

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        lastBody = JSON.parse(body);
        lastPath = req.url;
        behaviour(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  const answer = (results: unknown) => (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));

  it('sends the question and the passages, and gives each passage its score in the passages’ order', async () => {
    behaviour = answer([
      { index: 1, relevance_score: 0.9 },
      { index: 0, relevance_score: 0.1 },
    ]);
    const scores = await new OpenAiReranker({ url, model: 'bge-reranker', timeoutMs: 10_000 }).rerank('where is the hotel?', [
      'the weather is fine',
      'Hotel Avenida is on the square',
    ]);
    expect(scores).toEqual([0.1, 0.9]);
    expect(lastPath).toBe('/v1/rerank');
    expect(lastBody).toMatchObject({
      model: 'bge-reranker',
      query: 'where is the hotel?',
      documents: ['the weather is fine', 'Hotel Avenida is on the square'],
    });
  });

  it('answers null (recall keeps its order) on an error, a malformed answer or a timeout, and says why', async () => {
    const warnings: string[] = [];
    const reranker = new OpenAiReranker({ url, model: 'm', timeoutMs: 100, logger: { warn: (m) => warnings.push(m) } });
    behaviour = (res) => res.writeHead(503).end('overloaded');
    expect(await reranker.rerank('q', ['a'])).toBeNull();
    behaviour = answer([{ index: 7, relevance_score: 1 }]);
    expect(await reranker.rerank('q', ['a'])).toBeNull();
    behaviour = () => {};
    expect(await reranker.rerank('q', ['a'])).toBeNull();
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/HTTP 503.*REWIND_RERANK_URL/);
  });
});
