import { parse, stringify } from 'yaml';
import { AppError } from '../../platform/errors.js';

/**
 * The YAML calls of exports and imports with their options, in a module that imports nothing else of
 * the server: the YAML worker threads (yaml-worker.ts) load it as well as the event loop does.
 */

/** A document as YAML text; long lines stay unfolded so every value reads back exactly. */
export function yamlTextOf(document: unknown): string {
  return stringify(document, { lineWidth: 0 });
}

/** The value of a YAML file; aliases are bounded (an alias bomb is refused), errors become a 400. */
export function yamlValueOf(text: string): unknown {
  try {
    return parse(text, { maxAliasCount: 100, prettyErrors: true }) as unknown;
  } catch (error) {
    throw AppError.invalid(`The file is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : ''}`);
  }
}
