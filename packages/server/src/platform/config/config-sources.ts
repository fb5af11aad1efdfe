import { readFileSync } from 'node:fs';

import { isKnownSection, sectionNames } from './config-schema.js';
import { nearestName } from './nearest-name.js';

/**
 * One key/value pair as a source gives it, before merging. `segments` keep the source's own
 * spelling (for messages); `value` is null for a JSON null or an empty JSON object, and ''
 * for an empty JSON array, so that `[]` can mean "no elements" rather than "unset".
 */
export interface RawEntry {
  readonly segments: readonly string[];
  readonly value: string | null;
  /** Where the entry came from, for messages about unknown keys. */
  readonly origin: string;
}

export interface ConfigSource {
  readonly entries: readonly RawEntry[];
}

export interface CommandLine {
  /** The value of `--config`, as given. */
  readonly configPath: string | undefined;
  readonly source: ConfigSource;
}

/** Where the readers of sources report what they cannot use; they carry on with the rest. */
export type Problems = (message: string) => void;

/** Where they report what they ignore but the operator should hear of (logged at start, shown by check-config). */
export type Warnings = (message: string) => void;

/**
 * Reads one JSON settings file. A missing file is only an error when the user named it
 * explicitly (`required`); a file that exists but cannot be read or parsed always is. A file
 * with a problem adds nothing, so the other sources are still read and checked.
 * A top-level section that is not the server's is a misspelling when it is close to one of ours
 * (`Authentcation`: an error naming `Authentication`, as an unknown key inside our sections is),
 * else another tool's section, ignored with a warning.
 */
export function readJsonSource(
  path: string,
  options: { readonly required: boolean },
  problem: Problems,
  warning: Warnings,
): ConfigSource | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!options.required && errorCode(error) === 'ENOENT') return undefined;
    problem(`cannot read configuration file ${path} (${errorCode(error) ?? describe(error)})`);
    return undefined;
  }
  let parsed: unknown;
  try {
    // Editors on Windows like to save a byte-order mark, which JSON.parse rejects.
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    problem(`configuration file ${path} is not valid JSON (${describe(error)})`);
    return undefined;
  }
  if (!isJsonObject(parsed)) {
    problem(`configuration file ${path} must contain a JSON object`);
    return undefined;
  }
  const entries: RawEntry[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    const segments = name.split(':');
    const section = segments[0] ?? '';
    if (!isKnownSection(section)) {
      const meant = nearestName(section, sectionNames);
      if (meant !== undefined) problem(`unknown section ${section} (from ${path}); did you mean ${meant}?`);
      // Other tools keep their own sections in the same file; only ours are read.
      else warning(`the section ${section} of ${path} is ignored: the server's are ${sectionNames.join(', ')}`);
      continue;
    }
    flattenJson(value, segments, path, entries);
  }
  return { entries };
}

/**
 * Environment variables named `Section__Key` (`__` nests, numeric segments index arrays).
 * Only our sections are read: the environment holds plenty of unrelated variables. One whose first
 * segment is close to one of our sections is likely a misspelling, but may be another program's:
 * it is ignored with a warning naming the section it resembles.
 */
export function readEnvironmentSource(
  env: Readonly<Record<string, string | undefined>>,
  warning: Warnings,
): ConfigSource {
  const entries: RawEntry[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.includes('__')) continue;
    const segments = name.split('__');
    const section = segments[0] ?? '';
    if (!isKnownSection(section)) {
      const meant = nearestName(section, sectionNames);
      if (meant !== undefined) warning(`environment variable ${name} is ignored: did you mean ${meant}?`);
      continue;
    }
    entries.push({ segments, value, origin: `environment variable ${name}` });
  }
  return { entries };
}

/**
 * Parses `--config PATH`, `--config=PATH`, `--Section:Key=value` and `--Section:Key value`.
 * Anything else is reported: a command line is typed on purpose, so a stray word is a mistake
 * worth reporting rather than ignoring.
 */
export function parseCommandLine(argv: readonly string[], problem: Problems): CommandLine {
  let configPath: string | undefined;
  const entries: RawEntry[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--') || arg.length === 2) {
      problem(`unexpected command-line argument ${JSON.stringify(arg)} (expected --Section:Key=value)`);
      continue;
    }
    const body = arg.slice(2);
    const equals = body.indexOf('=');
    const name = equals >= 0 ? body.slice(0, equals) : body;
    let value: string;
    if (equals >= 0) {
      value = body.slice(equals + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        problem(`command-line argument --${name} needs a value (--${name}=value)`);
        continue;
      }
      value = next;
      i++;
    }
    if (name.toLowerCase() === 'config') {
      if (value === '') problem('command-line argument --config needs a file path');
      else configPath = value;
      continue;
    }
    entries.push({ segments: name.split(':'), value, origin: `command-line argument --${name}` });
  }
  return { configPath, source: { entries } };
}

/**
 * Splits a command line into the configuration arguments (`--config`, `--Section:Key[=value]`
 * with the value that follows when there is no `=`) and the rest (a subcommand, its operands and
 * options), so that configuration can be given before or after a subcommand.
 */
export function separateConfigArguments(argv: readonly string[]): {
  readonly config: string[];
  readonly rest: string[];
} {
  const config: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const name = arg.startsWith('--') ? (arg.slice(2).split('=')[0] ?? '') : '';
    if (name.toLowerCase() !== 'config' && !name.includes(':')) {
      rest.push(arg);
      continue;
    }
    config.push(arg);
    const next = argv[i + 1];
    if (!arg.includes('=') && next !== undefined && !next.startsWith('--')) {
      config.push(next);
      i++;
    }
  }
  return { config, rest };
}

function flattenJson(value: unknown, segments: readonly string[], origin: string, out: RawEntry[]): void {
  if (value === null || value === undefined) {
    out.push({ segments, value: null, origin });
  } else if (Array.isArray(value)) {
    if (value.length === 0) out.push({ segments, value: '', origin });
    value.forEach((item: unknown, index) => flattenJson(item, [...segments, String(index)], origin, out));
  } else if (isJsonObject(value)) {
    const children = Object.entries(value);
    if (children.length === 0) out.push({ segments, value: null, origin });
    for (const [name, child] of children) flattenJson(child, [...segments, ...name.split(':')], origin, out);
  } else if (typeof value === 'string') {
    out.push({ segments, value, origin });
  } else {
    // Numbers and booleans become their text, like every other source, and are coerced later.
    out.push({ segments, value: String(value), origin });
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
