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
 * The value of a YAML file, read under the core schema whatever its `%YAML` directive says: `!!set`, `!!binary`,
 * `!!timestamp` and custom tags are refused (they would turn into `{}`, bytes or a date without a
 * word), as are a key given twice and a key that is not text.
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
  });
  if (problems.length > 0) {
    throw AppError.invalid(`The file is not plain YAML data: ${[...new Set(problems)].slice(0, 5).join('; ')}.`);
  }
  return doc.toJS({ maxAliasCount: 100 }) as unknown;
}
