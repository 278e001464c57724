import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['*.test.mjs'],
    // The suite calls describe/it/beforeAll as globals (it is written for any Jest-like runner).
    globals: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
