import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Tests run the TypeScript sources of workspace packages, not their build output.
  resolve: { conditions: ['@realtime-config/source'] },
  ssr: { resolve: { conditions: ['@realtime-config/source'] } },
  test: {
    // Files run two at a time even on two cores (Vitest's default there is one): most of a test's
    // time is spent waiting on a server, a database or a browser, not computing.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          // eslint-rules: the project's own lint rules (ESLint's RuleTester).
          include: ['packages/{protocol,client,server,openfeature}/src/**/*.test.ts', 'eslint-rules/**/*.test.js'],
          pool: 'forks',
          // Type tests (expectTypeOf) of the client SDK's inference, checked by tsc as part of `npm test`.
          typecheck: {
            enabled: true,
            include: ['packages/client/src/**/*.test-d.ts'],
            tsconfig: 'packages/client/tsconfig.json',
          },
        },
      },
      {
        // The repository's own scripts (plain JavaScript, run by node before anything is built) and
        // the deployment files.
        extends: true,
        test: { name: 'repository', include: ['scripts/**/*.test.mjs', 'deploy/**/*.test.mjs'] },
      },
      {
        // The command line: the built binary against a real server; builds it once first.
        extends: true,
        test: {
          name: 'cli',
          include: ['packages/cli/src/**/*.test.ts'],
          pool: 'forks',
          globalSetup: ['packages/cli/src/test-support/build-cli.ts'],
        },
      },
      {
        // The console's components, in a DOM.
        extends: true,
        plugins: [react()],
        test: {
          name: 'web',
          include: ['packages/web/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['packages/web/src/test-support/setup-dom.ts'],
        },
      },
      {
        // The console in Debian's Chromium against the real server; builds the console once first.
        extends: true,
        test: {
          name: 'console-e2e',
          include: ['packages/web/e2e/**/*.test.ts'],
          pool: 'forks',
          globalSetup: ['packages/web/e2e/support/build-console.ts'],
        },
      },
    ],
  },
});
