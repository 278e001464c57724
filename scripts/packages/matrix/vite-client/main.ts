// The Vite project's app: @rewind/client bundled (for the browser: no Node built-ins) into
// dist/app.js; run.mjs runs it under Node with a stand-in hotel service.
import { createRewindClient } from '@rewind/client';
import { clientScenario, type Hotel } from './client-scenario.js';

export function run(options: { baseUrl: string; apiKey: string; hotel: Hotel }): Promise<string> {
  const client = createRewindClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  return clientScenario(client, options.hotel, `vite-${Date.now().toString(36)}`);
}
