import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The server's layering rules fire on what they forbid (and only there): files of the real tree
 * linted with the repository's own configuration, their text replaced by the import under test.
 */
const root = path.join(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });
const src = (file) => path.join(root, 'packages/server/src', file);

async function problems(file, code) {
  const [result] = await eslint.lintText(code, { filePath: src(file) });
  return result.messages.filter((m) => m.ruleId?.startsWith('import-x/')).map((m) => m.message);
}

describe('the server layering lint', () => {
  it('refuses core/ importing a feature or db/', async () => {
    expect(await problems('core/page.ts', `export { EntryCommands } from '../features/entries/index.js';\n`)).toEqual([
      expect.stringContaining('core/ is below the features'),
    ]);
    expect(await problems('core/page.ts', `export { createUnitOfWork } from '../db/unit-of-work.js';\n`)).toEqual([
      expect.stringContaining('core/ is below the features'),
    ]);
  });

  it('refuses db/ importing a feature, and a feature importing db/ internals', async () => {
    expect(await problems('db/schema.ts', `export { auditRoutes } from '../features/audit/index.js';\n`)).toEqual([
      expect.stringContaining('db/ implements the stores of core/'),
    ]);
    expect(
      await problems(
        'features/entries/entry-queries.ts',
        `export { createEntryStore } from '../../db/stores/entry-store.js';\n`,
      ),
    ).toEqual([expect.stringContaining("Features reach storage through core's UnitOfWork")]);
  });

  it('lets a feature use only the features it names, and those only through their index.ts', async () => {
    expect(
      await problems('features/audit/audit-queries.ts', `export { EntryCommands } from '../entries/index.js';\n`),
    ).toEqual([expect.stringContaining('features/audit may not use features/entries')]);
    expect(
      await problems(
        'features/transfer/version-compare.ts',
        `export { EntryPlans } from '../entries/entry-plans.js';\n`,
      ),
    ).toEqual([expect.stringContaining('through its index.ts')]);
    expect(
      await problems('features/transfer/version-compare.ts', `export { EntryPlans } from '../entries/index.js';\n`),
    ).toEqual([]);
  });

  it('refuses platform/ importing anything of ours above it', async () => {
    expect(await problems('platform/ids.ts', `export { auditView } from '../core/index.js';\n`)).toEqual([
      expect.stringContaining('platform/ knows nothing of ours'),
    ]);
  });

  it('refuses an import circle', async () => {
    // core/caller.ts imports core/identity.ts; identity importing caller back closes a circle.
    expect(
      await problems(
        'core/identity.ts',
        `import { anonymousCaller } from './caller.js';\nexport const x = anonymousCaller;\n`,
      ),
    ).toEqual([expect.stringMatching(/cycle/i)]);
  });
});
