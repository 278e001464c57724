import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { serveUi, uiAssetsDir } from './serve-ui';

describe('the web UI is served at /ui by the API process', () => {
  let t: TestApp;
  beforeAll(async () => {
    const dir = uiAssetsDir();
    if (!dir || !existsSync(join(dir, 'index.html'))) throw new Error(`The UI is not built (no index.html in ${dir}): run \`npm run build\` first.`);
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('serves the page without an API key (it holds no data), and /ui redirects to /ui/', async () => {
    const page = await fetch(`${t.baseUrl}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('<div id="root">');
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${t.baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(1000);
    const bare = await fetch(`${t.baseUrl}/ui`, { redirect: 'manual' });
    await bare.text(); // an unread body would hold the connection open past close()
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/ui/');
  });

  it('still guards the API: the data the page asks for needs the key', async () => {
    const answer = await fetch(`${t.baseUrl}/v1/sessions`);
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });
});

@Module({})
class NothingModule {}

describe('when the web UI has not been built', () => {
  it('answers /ui with what to do, in the documented error shape', async () => {
    const app = await NestFactory.create<NestFastifyApplication>(NothingModule, new FastifyAdapter(), { logger: false });
    serveUi(app, join(__dirname, 'no-such-build'));
    await app.init();
    try {
      for (const url of ['/ui', '/ui/', '/ui/assets/index.js']) {
        const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url });
        expect(res.statusCode).toBe(503);
        expect(res.json().error).toMatchObject({ code: 'ui_not_built', details: [] });
        expect(res.json().error.message).toContain('npm run build');
      }
    } finally {
      await app.close();
    }
  });
});
