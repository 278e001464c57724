// A browser library build of main.ts: @rewind/client and its dependencies bundled into dist/app.js.
import { defineConfig } from 'vite';

export default defineConfig({
  build: { lib: { entry: 'main.ts', formats: ['es'], fileName: () => 'app.js' }, outDir: 'dist', emptyOutDir: true, minify: false },
});
