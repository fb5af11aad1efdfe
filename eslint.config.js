import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The server's feature folders: they use each other only through their index.ts. */
const FEATURES = ['audit', 'auth', 'entries', 'history', 'ops', 'realtime', 'services', 'transfer', 'versions'];
const otherFeatureFiles = [...FEATURES.map((f) => `../${f}/*`), '!../*/index.js'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/src/gen/**', 'data/**', 'coverage/**'] },
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

  // Layering of the server (docs/architecture.md): features use each other through their index.ts;
  // routes/RPC handlers -> commands/queries -> store interfaces; platform/ knows no feature.
  {
    files: ['packages/server/src/features/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: otherFeatureFiles,
              message: 'Another feature is used through its index.ts (its public surface).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/server/src/features/**/*-routes.ts', 'packages/server/src/features/**/*-rpc.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: otherFeatureFiles, message: 'Another feature is used through its index.ts.' },
            {
              group: ['./*-store.js', '../../db/*', 'kysely', 'pg', 'better-sqlite3'],
              allowTypeImports: true,
              message: 'Routes and RPC handlers call commands and queries; they never touch storage.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'packages/server/src/features/**/*-commands.ts',
      'packages/server/src/features/**/*-queries.ts',
      'packages/server/src/features/versions/version-registration.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: otherFeatureFiles, message: 'Another feature is used through its index.ts.' },
            {
              group: ['fastify', '@fastify/*', '@connectrpc/*', 'pg', 'better-sqlite3', 'kysely', './*-routes.js'],
              allowTypeImports: true,
              message:
                'Commands and queries know neither the transport nor the database driver: only UnitOfWork and stores.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/server/src/features/**/*-store.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['./*-commands.js', './*-queries.js', './*-routes.js', 'fastify', '@connectrpc/*'],
              message: 'Stores are the bottom layer: SQL only, no commands, routes or transports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/server/src/platform/**/*.ts'],
    ignores: ['**/*.test.ts', 'packages/server/src/platform/server/serve.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../features/*', '../features/*'], message: 'platform/ knows no feature.' }] },
      ],
    },
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
    // The CLI ships on its own too: it talks to the server over REST, and over gRPC only through the
    // SDK (@realtime-config/client), which carries the generated protocol code.
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
              group: ['@realtime-config/protocol', '@realtime-config/protocol/*', '**/protocol/**'],
              message: 'The CLI reaches gRPC through the SDK (@realtime-config/client), which carries the protocol.',
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
    files: ['packages/web/public/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
