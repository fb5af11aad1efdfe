import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';

/**
 * The server's layers (docs/architecture.md), enforced on every import:
 *
 *   app.ts, app-*.ts, serve.ts  the composition root (main.ts starts it): may import everything
 *   features/<name>/            routes, commands, queries; may import core/, platform/ and the
 *                               index.ts of the features FEATURE_USES names, nothing of db/
 *   db/                         SQL stores and the database's change feed; implements core/
 *   core/                       records, store interfaces, change vocabulary, access rule, entry writer
 *   platform/                   configuration, errors, HTTP, the listener: knows nothing of ours
 *
 * and no import circle anywhere in the server's sources.
 */

const SRC = 'packages/server/src';

/** Which feature may use which (always through its index.ts). What all of them share lives in core/. */
export const FEATURE_USES = {
  audit: ['auth'],
  auth: [],
  entries: ['auth'],
  history: ['auth', 'entries'],
  ops: [],
  openfeature: ['auth', 'realtime'],
  realtime: ['auth', 'ops', 'versions'],
  regions: [],
  services: ['auth'],
  transfer: ['auth', 'entries'],
  versions: ['auth', 'entries'],
  rollouts: ['auth', 'entries'],
  'change-requests': ['auth', 'rollouts'],
  webhooks: ['auth', 'versions'],
  validators: ['auth', 'webhooks'],
  'web-console': [],
};

const at = (path) => `./${SRC}/${path}`;
// Globs only: a zone's `from` is either all globs or all plain paths.
const ROOT = at('{app,app-*,main,serve}.ts');
const all = (folder) => at(`${folder}/**`);

const zones = [
  {
    target: at('core'),
    from: [all('features'), all('db'), ROOT],
    message: 'core/ is below the features and the database: it imports platform/ only.',
  },
  {
    target: at('db'),
    from: [all('features'), ROOT],
    message: 'db/ implements the stores of core/; it knows no feature.',
  },
  {
    target: at('platform'),
    from: [all('features'), all('core'), all('db'), ROOT],
    message: 'platform/ knows nothing of ours.',
  },
  {
    target: at('features'),
    from: [all('db'), ROOT],
    message: "Features reach storage through core's UnitOfWork, never db/.",
  },
  ...Object.entries(FEATURE_USES).flatMap(([feature, uses]) =>
    Object.keys(FEATURE_USES)
      .filter((other) => other !== feature)
      .map((other) =>
        uses.includes(other)
          ? {
              target: at(`features/${feature}`),
              from: at(`features/${other}`),
              except: ['./index.ts'],
              message: `features/${feature} uses features/${other} through its index.ts (its public surface).`,
            }
          : {
              target: at(`features/${feature}`),
              from: at(`features/${other}`),
              message: `features/${feature} may not use features/${other} (FEATURE_USES in eslint-rules/server-layers.js); move what both need to core/.`,
            },
      ),
  ),
];

export const serverLayers = [
  {
    files: [`${SRC}/**/*.ts`],
    // Tests and their helpers reach across the layers on purpose (they prod the storage directly).
    ignores: ['**/*.test.ts', `${SRC}/test-support/**`],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'packages/server/tsconfig.json' })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
];
