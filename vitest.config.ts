import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Tests run the TypeScript sources of workspace packages, not their build output.
  resolve: { conditions: ['@realtime-config/source'] },
  ssr: { resolve: { conditions: ['@realtime-config/source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
