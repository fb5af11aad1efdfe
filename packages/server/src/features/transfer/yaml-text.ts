import { isScalar, parseDocument, stringify, visit as visitYaml } from 'yaml';
import { AppError } from '../../platform/errors.js';

/**
 * The YAML calls of exports and imports with their options, in a module that imports nothing else of
 * the server: the YAML worker threads (yaml-worker.ts) load it as well as the event loop does.
 */

/** A document as YAML text; long lines stay unfolded so every value reads back exactly. */
export function yamlTextOf(document: unknown): string {
  return stringify(document, { lineWidth: 0 });
}

/** The tags of YAML's core schema: a file may spell them out, and any other tag is refused. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/**
 * Aliases a file's value may expand, weighted by the size of what each repeats (the `yaml` library's
 * count): a file past it, such as an alias bomb ("billion laughs"), is refused instead of read.
 */
const MAX_ALIAS_COUNT = 100;

/**
 * The value of a YAML file, read under the core schema whatever its `%YAML` directive says: `!!set`, `!!binary`,
 * `!!timestamp` and custom tags are refused (they would turn into `{}`, bytes or a date without a
 * word), as are a key given twice, a key that is not text, an alias without its anchor, an alias
 * inside what it names (a value without end) and aliases that expand past `MAX_ALIAS_COUNT`.
 */
export function yamlValueOf(text: string): unknown {
  const doc = parseDocument(text, {
    schema: 'core',
    resolveKnownTags: false,
    uniqueKeys: true,
    prettyErrors: true,
    logLevel: 'silent',
  });
  const firstLine = (message: string) => message.split('\n')[0] ?? '';
  const [error] = doc.errors;
  if (error) throw AppError.invalid(`The file is not valid YAML: ${firstLine(error.message)}`);
  const problems = doc.warnings.map((warning) => firstLine(warning.message));
  visitYaml(doc, {
    Node: (_key, node) => {
      if (node.tag !== undefined && !CORE_TAGS.has(node.tag)) problems.push(`the tag ${node.tag} is not allowed`);
    },
    Pair: (_key, pair) => {
      if (pair.key !== null && !isScalar(pair.key)) problems.push('a key is not plain text');
    },
    Alias: (_key, alias, path) => {
      const target = alias.resolve(doc);
      if (target === undefined) problems.push(`the alias *${alias.source} has no anchor before it`);
      else if (path.includes(target)) problems.push(`the alias *${alias.source} is inside the node it names`);
    },
  });
  if (problems.length > 0) {
    throw AppError.invalid(`The file is not plain YAML data: ${[...new Set(problems)].slice(0, 5).join('; ')}.`);
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (error) {
    // The `yaml` library refuses an expansion past maxAliasCount with a ReferenceError: the file's
    // fault (an alias bomb), so a 400, not a server error.
    if (error instanceof ReferenceError) {
      throw AppError.invalid(
        `The file's aliases expand past the limit of the YAML reader (${MAX_ALIAS_COUNT}); write the repeated values out.`,
      );
    }
    throw error;
  }
}
