import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The API serves the built assets at /ui (apps/api: serve-ui.ts), so every URL is under it.
export default defineConfig({
  base: '/ui/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  // `npm run dev -w @rewind/ui`: live reload, with the API calls sent to a running Rewind.
  server: { proxy: { '/v1': process.env.REWIND_URL ?? 'http://localhost:3000' } },
});
