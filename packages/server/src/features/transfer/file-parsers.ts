import { parse as parseDotenv } from 'dotenv';
import { visit as visitJson, type JSONPath } from 'jsonc-parser';
import { dictionary } from '../../platform/dictionary.js';
import { AppError } from '../../platform/errors.js';
import { findIllFormedText } from '../../platform/http/reject-ill-formed-text.js';

/**
 * An imported file is read strictly: whatever a parser would otherwise repair or guess (bytes that
 * are not UTF-8, a key given twice, a YAML tag the file format does not define) is refused with 400,
 * so that what is imported is exactly what the file says.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a file's bytes (a byte-order mark is dropped); bytes that are not UTF-8 are refused, not replaced. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw AppError.invalid('The file is not valid UTF-8 text.', { body: ['is not valid UTF-8'] });
  }
}

/** Text of a file may hold escapes (JSON `\u0000`, YAML `\0`, `\ud800`): the same rules as every other text. */
export function requireWellFormed(value: unknown): void {
  const found = findIllFormedText(value);
  if (found) {
    throw AppError.invalid(
      'The file holds text that is not allowed (U+0000, a lone surrogate, or nesting deeper than 400).',
      { [found.path || 'body']: [found.problem] },
    );
  }
}

function refuseDuplicates(names: readonly string[]): void {
  if (names.length === 0) return;
  const unique = [...new Set(names)];
  throw AppError.invalid(
    `The file defines ${unique.slice(0, 10).join(', ')} more than once.`,
    dictionary(unique.map((name) => [name, ['is defined more than once']])),
  );
}

/** A place in a JSON document, named as field errors name it: `values.Payments.Timeout`, `list[0].a`. */
function fieldPath(path: JSONPath, name: string): string {
  return [...path, name].reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

/**
 * A JSON file: its syntax strict (JSON.parse), its text well-formed, and no object naming a member
 * twice (JSON.parse would keep the last silently).
 */
export function parseJsonFile(text: string): unknown {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw AppError.invalid(`The file is not valid JSON: ${error instanceof Error ? error.message : ''}`);
  }
  // Before the scan below, which recurses once per level.
  requireWellFormed(document);
  const open: Array<Set<string>> = [];
  const duplicates: string[] = [];
  visitJson(text, {
    onObjectBegin: () => void open.push(new Set()),
    onObjectEnd: () => void open.pop(),
    onObjectProperty: (name, _offset, _length, _line, _column, pathSupplier) => {
      const members = open.at(-1);
      if (members?.has(name)) duplicates.push(fieldPath(pathSupplier(), name));
      members?.add(name);
    },
  });
  refuseDuplicates(duplicates);
  return document;
}

/**
 * The variable names an env file defines, in order, duplicates included, as dotenv reads them:
 * dotenv keeps only the last value of a name, so each name at the start of a line is first made
 * unique (`3.NAME`). Only names change, never quotes, so dotenv finds the same definitions.
 */
function definedNames(text: string): string[] {
  let n = 0;
  const numbered = text.replace(/^(\s*(?:export\s+)?)([\w.-]+)/gm, (_match, lead: string, name: string) => {
    return `${lead}${n++}.${name}`;
  });
  return Object.keys(parseDotenv(numbered)).map((name) => name.slice(name.indexOf('.') + 1));
}

/** `Group__Key=value` lines (dotenv syntax), each name once: the names and their values as text. */
export function parseEnvText(text: string): Array<[name: string, value: string]> {
  const names = definedNames(text);
  const seen = new Set<string>();
  refuseDuplicates(names.filter((name) => seen.has(name) || !seen.add(name)));
  const values = parseDotenv(text);
  const unread = names.filter((name) => !Object.hasOwn(values, name));
  if (unread.length > 0) {
    throw AppError.invalid(
      `The file names variables that cannot be read: ${unread.join(', ')}.`,
      dictionary(unread.map((name) => [name, ['is not a variable name']])),
    );
  }
  return names.map((name) => [name, values[name] as string]);
}
