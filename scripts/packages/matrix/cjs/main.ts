// CommonJS TypeScript (module node16 in a "type": "commonjs" package): the packages through
// their `require` entry points and CommonJS typings.
import { createRewindClient } from '@rewind/client';
import { clientScenario } from './client-scenario.js';
import { embeddedScenario } from './embedded-scenario.js';
import { startHotel } from './hotel.js';

async function main(): Promise<void> {
  console.log(await embeddedScenario());
  const hotel = await startHotel();
  try {
    const client = createRewindClient({ baseUrl: process.env.REWIND_URL!, apiKey: process.env.REWIND_API_KEY! });
    console.log(await clientScenario(client, hotel, `cjs-${Date.now().toString(36)}`));
  } finally {
    hotel.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
