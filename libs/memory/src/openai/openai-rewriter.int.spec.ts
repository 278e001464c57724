import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiRewriter } from './openai-rewriter';

// No LLM can run here: a loopback HTTP server speaks the chat-completions protocol so that
// the adapter's request, its parsing, its timeout and its fallback are exercised over real HTTP.
describe('OpenAI-compatible query rewriter', () => {
  let server: Server;
  let url: string;
  let lastBody: { model: string; messages: { role: string; content: string }[] } | undefined;
  let lastAuth: string | undefined;
  let behaviour: (res: ServerResponse) => void = () => {};

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        lastBody = JSON.parse(body);
        lastAuth = req.headers.authorization;
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

  it('sends the recent turns and the question, and uses the answer as the query', async () => {
    behaviour = (res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ message: { content: '"What is the price of Hotel Avenida?"' } }] }));
    const rewriter = new OpenAiRewriter({ url, model: 'fast-model', apiKey: 'sk-test' });
    const result = await rewriter.rewrite('what about its price?', [{ role: 'user', content: 'Tell me about Hotel Avenida' }]);
    expect(result).toEqual({ query: 'What is the price of Hotel Avenida?', rewriter: 'llm' });
    expect(lastBody!.model).toBe('fast-model');
    expect(lastBody!.messages[1]!.content).toContain('user: Tell me about Hotel Avenida');
    expect(lastBody!.messages[1]!.content).toContain('what about its price?');
    expect(lastAuth).toBe('Bearer sk-test');
  });

  it('falls back to the raw question when the service fails, and says why', async () => {
    behaviour = (res) => res.writeHead(503).end('overloaded');
    const warnings: string[] = [];
    const rewriter = new OpenAiRewriter({ url, model: 'fast-model', logger: { warn: (m) => warnings.push(m) } });
    const result = await rewriter.rewrite('what about its price?', []);
    expect(result).toMatchObject({ query: 'what about its price?', rewriter: 'fallback' });
    expect(result.note).toMatch(/HTTP 503.*used as asked.*REWIND_LLM_URL/);
    expect(warnings).toHaveLength(1);
  });

  it('falls back when the service does not answer within the timeout', async () => {
    behaviour = () => {}; // never answers
    const rewriter = new OpenAiRewriter({ url, model: 'fast-model', timeoutMs: 100 });
    const result = await rewriter.rewrite('and its address?', []);
    expect(result).toMatchObject({ query: 'and its address?', rewriter: 'fallback' });
    expect(result.note).toMatch(/abort|timeout/i);
  });
});
