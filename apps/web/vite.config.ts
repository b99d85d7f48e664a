import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const workspace = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * The local stack's gateway, which serves the API, the push streams and /health on one origin.
 * Server-Sent Events pass through untouched: the proxy streams and never buffers.
 */
const gateway = 'http://127.0.0.1:8080';
const proxy = { '/api': { target: gateway }, '/health': { target: gateway } };

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: {
    alias: {
      '@oasis198/contracts': workspace('libs/contracts/src/index.ts'),
      '@oasis198/game-rules': workspace('libs/game-rules/src/index.ts'),
    },
  },
  server: { host: '127.0.0.1', port: 4200, proxy },
  preview: { host: '127.0.0.1', port: 4300, proxy },
  build: {
    outDir: workspace('dist/apps/web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 400,
    rolldownOptions: {
      output: {
        // Stable, cacheable vendor chunks; each screen group is its own lazy chunk.
        codeSplitting: {
          groups: [
            {
              name: 'react',
              test: /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|cookie|set-cookie-parser)[\\/]/,
            },
            { name: 'query', test: /node_modules[\\/]@tanstack[\\/]/ },
            { name: 'shared', test: /libs[\\/](contracts|game-rules)[\\/]/ },
          ],
        },
      },
    },
  },
});
