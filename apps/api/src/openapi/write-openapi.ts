import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '@rewind/config';
import { createApp } from '../create-app';
import { buildOpenApiDocument } from './openapi-document';

/** The document as committed: stable key order from the controllers, two-space JSON, a final newline. */
export async function renderOpenApiDocument(): Promise<string> {
  // The document needs the app's routes, not its data: a throwaway embedded store, never listening.
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-openapi-'));
  try {
    const config = loadConfig({
      REWIND_STORE: 'sqlite',
      REWIND_DATA_DIR: dataDir,
      REWIND_LOG_LEVEL: 'error',
      // The memory routes are there either way; off, no model is fetched for a document.
      REWIND_MEMORY: 'off',
      REWIND_ADMIN_KEY: 'openapi-'.repeat(4),
    });
    const { app } = await createApp(config);
    try {
      return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `npm run openapi`: writes docs/openapi.json (or the path given), the file clients are generated from. */
if (require.main === module) {
  const target = resolve(process.argv[2] ?? 'docs/openapi.json');
  renderOpenApiDocument()
    .then((text) => {
      writeFileSync(target, text);
      process.stdout.write(`Wrote ${target}\n`);
    })
    .catch((error: unknown) => {
      process.stderr.write(`Could not write the OpenAPI document: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
