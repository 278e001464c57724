import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export const UI_PREFIX = '/ui/';

/** Where `npm run build` puts the web UI's assets (apps/ui/dist), or null when it is not installed. */
export function uiAssetsDir(): string | null {
  try {
    return join(dirname(createRequire(__filename).resolve('@rewind/ui/package.json')), 'dist');
  } catch {
    return null;
  }
}

/**
 * Serves the time-travel UI's static assets at /ui from this process and port. The pages
 * are public (they hold no data); every API call they make carries the user's API key.
 */
export function serveUi(app: NestFastifyApplication, assetsDir: string | null = uiAssetsDir()): void {
  if (assetsDir && existsSync(join(assetsDir, 'index.html'))) {
    app.useStaticAssets({ root: assetsDir, prefix: UI_PREFIX });
    // The page's relative URLs need the trailing slash.
    app
      .getHttpAdapter()
      .getInstance()
      .get('/ui', async (_request, reply) => reply.redirect(UI_PREFIX, 301));
    return;
  }
  // Not built: say how to get it rather than a bare 404.
  const notBuilt = {
    error: {
      code: 'ui_not_built',
      message: `The web UI has not been built (no index.html in ${assetsDir ?? 'apps/ui/dist'}): run \`npm run build\`, then restart Rewind.`,
      details: [],
    },
  };
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get('/ui', async (_request, reply) => reply.status(503).send(notBuilt));
  fastify.get('/ui/*', async (_request, reply) => reply.status(503).send(notBuilt));
}
