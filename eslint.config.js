import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { applicationLayer } from './eslint-rules/application-layer.js';
import { localPlugin } from './eslint-rules/no-unsafe-key-write.js';
import { serverLayers } from './eslint-rules/server-layers.js';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/src/gen/**',
      'packages/protocol/src/rest/gen/**',
      'data/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Async server code: a forgotten await loses errors and ordering.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    // Objects keyed by names from outside (entry keys, files, claims, settings, server answers) have
    // no prototype: a computed-key write goes into a dictionary() or a Map (eslint-rules/).
    files: ['packages/*/src/**/*.{ts,tsx}', 'packages/*/scripts/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test.tsx', '**/test-support/**', '**/src/gen/**'],
    plugins: { local: localPlugin },
    rules: { 'local/no-unsafe-key-write': 'error' },
  },
  {
    // Tools that require a default export.
    files: ['vitest.config.ts', 'eslint.config.js', 'packages/web/vite.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', '**/*.test-d.ts', '**/test-support/**', '**/bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Only the composition root and configuration read the environment.
    files: ['packages/server/src/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      '**/test-support/**',
      'packages/server/src/main.ts',
      'packages/server/src/platform/config/**',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Configuration comes from AppConfig.' },
      ],
    },
  },

  {
    // The packed server installs without the private protocol package: its code reaches the generated
    // protocol only through src/protocol.ts, which compiles it into the package (docs/adr/0010).
    // A rule of its own (not no-restricted-imports), so the layering rules below still apply.
    files: ['packages/server/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-support/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@realtime-config/protocol', '@realtime-config/protocol/*'],
              message: 'Import the protocol through src/protocol.ts, so the packed server carries it.',
            },
          ],
        },
      ],
    },
  },

  // Layering of the server (docs/architecture.md): core/, db/, platform/ and the features, each
  // feature using only the features it names, no import circles (eslint-rules/server-layers.js).
  ...serverLayers,
  {
    // Inside a feature: routes/RPC handlers -> commands/queries -> core's UnitOfWork.
    files: ['packages/server/src/features/**/*-routes.ts', 'packages/server/src/features/**/*-rpc.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['kysely', 'pg', 'better-sqlite3'],
              allowTypeImports: true,
              message: 'Routes and RPC handlers call commands and queries; they never touch storage.',
            },
          ],
        },
      ],
    },
  },
  {
    // Commands, queries and core/ know neither a transport nor a database driver. Which files those
    // are goes by folder: all of core/ and of each feature but its routes, RPC handlers and the
    // transport adapters eslint-rules/application-layer.js names.
    files: ['packages/server/src/features/**/*.ts', 'packages/server/src/core/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { layers: { rules: { 'application-layer': applicationLayer } } },
    rules: { 'layers/application-layer': 'error' },
  },
  {
    // The console runs in the browser: React's hook rules, browser globals, and never server code.
    files: ['packages/web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: globals.browser },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '@realtime-config/server', '@realtime-config/server/**'],
              message: 'The console never imports server code.',
            },
          ],
        },
      ],
    },
  },
  {
    // The SDK ships on its own: it never imports the server, and reaches the generated protocol code
    // only through src/internal/protocol.ts, which compiles it into the package (docs/adr/0008).
    files: ['packages/client/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test-d.ts', 'packages/client/src/test-support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '@realtime-config/server', '@realtime-config/server/*'],
              message: 'The client SDK never imports the server.',
            },
            {
              group: ['@realtime-config/protocol', '@realtime-config/protocol/*'],
              message: 'Import the protocol through src/internal/protocol.ts, so the package carries it.',
            },
          ],
        },
      ],
    },
  },
  {
    // The CLI ships on its own too: it talks to the server over REST, typed by the protocol package's
    // REST types (type imports only: they vanish from the build, and the private package is not
    // shipped), and over gRPC only through the SDK, whose sources src/sdk.ts imports by path so the
    // build carries them (with the generated protocol code).
    files: ['packages/cli/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'packages/cli/src/test-support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '@realtime-config/server', '@realtime-config/server/*', '**/web/**'],
              message: 'The CLI never imports the server or the console.',
            },
            {
              // The protocol package (but its REST types) by name, or any of its files by path but its
              // vocabulary (plain data that src/vocabulary.ts compiles in).
              regex: '^@realtime-config/protocol(/(?!rest$).*)?$|^\\.\\.?/(.*/)?protocol/(?!src/vocabulary\\.js$)',
              message: 'The CLI reaches gRPC through the SDK (src/sdk.ts), which carries the protocol.',
            },
            {
              group: ['@realtime-config/protocol/rest'],
              allowTypeImports: true,
              message: 'Only types come from @realtime-config/protocol/rest: the CLI package does not ship it.',
            },
            {
              group: ['@realtime-config/client', '@realtime-config/client/*'],
              message: 'Import the SDK through src/sdk.ts, which compiles it into the package (no registry has it).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['packages/web/public/**/*.js', 'examples/openfeature-web/app.js'],
    languageOptions: { globals: globals.browser },
  },
);
