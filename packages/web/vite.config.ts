import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  // The browser build uses the protocol package's TypeScript sources (its generated protobuf-es code).
  resolve: { conditions: ['@realtime-config/source'] },
  // The schema checker's worker (src/rules/schema-check.ts) is an ES module, like the console.
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Hashed file names under /assets are served with an immutable cache policy by the server.
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npm run dev -w @realtime-config/web` proxies the API to a server started with `npm run dev`.
    proxy: Object.fromEntries(
      ['/api', '/auth', '/konfigo.client.RealtimeConfigGrpcService'].map((p) => [p, 'http://127.0.0.1:8080']),
    ),
  },
});
