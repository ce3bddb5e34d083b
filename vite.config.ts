/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The SPA is built into dist/ and served by our API server on the same origin.
// `npm run dev` proxies the Kubernetes paths to a server started with `npm start`.
const apiPaths = ['/api', '/apis', '/openapi', '/version', '/healthz', '/livez', '/readyz'];

export default defineConfig(({ command }) => ({
  plugins: [react()],
  // Relative asset URLs in the build, so the app also runs under a prefix
  // (`kubectl proxy --www=dist` serves it at /static/); our server adds
  // <base href="/"> so that deep links resolve them from the root.
  base: command === 'build' ? './' : '/',
  // The initial bundle budget (300 KB gzipped without Monaco) is printed by bench/, not guessed here.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: Object.fromEntries(apiPaths.map((p) => [p, { target: 'http://127.0.0.1:8080', ws: true }])),
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
}));
