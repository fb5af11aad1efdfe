import { parseValueType, valueTypeName } from '@realtime-config/protocol';
import { parse as parseDotenv } from 'dotenv';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { AppError } from '../../platform/errors.js';
import type { EntryRecord } from '../entries/index.js';
import { toTyped } from './typed-values.js';

export type ConfigFileFormat = 'json' | 'yaml' | 'env';

/** What a file says of one entry besides its value (json and yaml files carry it). */
export interface EntryMetadata {
  readonly type: string;
  readonly name: string;
  readonly description: string | null;
  readonly groupName: string | null;
  readonly groupDescription: string | null;
  readonly enumDefinition: string | null;
}

/** One key of an imported file: its value as text (env files, promotions) or typed (json, yaml). */
export interface ImportedEntry {
  readonly key: string;
  readonly value: { readonly raw: string | null } | { readonly typed: unknown };
  readonly meta: Partial<EntryMetadata> | null;
}

export interface DocumentHeader {
  readonly service: string;
  readonly version: string;
  readonly exportedAt: string;
}

const cannot = (format: string, keys: readonly string[], why: string): AppError =>
  new AppError('CONFLICT', `This version cannot be written as ${format}: ${keys.slice(0, 10).join(', ')} ${why}.`);

/** Values nested by key segments, as appsettings.json has them; refused when a key is also a prefix of another. */
function nest(values: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const keys = new Set(values.map(([key]) => key));
  const clashing = [...keys].filter((key) =>
    key.split(':').some((_, i, s) => i > 0 && keys.has(s.slice(0, i).join(':'))),
  );
  if (clashing.length > 0) throw cannot('nested JSON/YAML', clashing, 'sit under another key; use flat=true');
  const root: Record<string, unknown> = {};
  for (const [key, value] of values) {
    const segments = key.split(':');
    let node = root;
    for (const segment of segments.slice(0, -1)) node = (node[segment] ??= {}) as Record<string, unknown>;
    node[segments.at(-1) as string] = value;
  }
  return root;
}

/** The exported document of a version: typed values (nested or flat) and every entry's type and metadata. */
export function exportDocument(entries: readonly EntryRecord[], header: DocumentHeader, flat: boolean) {
  const values = entries.map((e) => [e.key, toTyped(e.valueType, e.rawValue)] as const);
  return {
    ...header,
    layout: flat ? 'flat' : 'nested',
    values: flat ? Object.fromEntries(values) : nest(values),
    entries: Object.fromEntries(
      entries.map((e): [string, EntryMetadata] => [
        e.key,
        {
          type: valueTypeName(e.valueType),
          name: e.name,
          description: e.description,
          groupName: e.groupName,
          groupDescription: e.groupDescription,
          enumDefinition: e.enumDefinition,
        },
      ]),
    ),
  };
}

export function exportYaml(document: ReturnType<typeof exportDocument>): string {
  return stringifyYaml(document, { lineWidth: 0 });
}

const ENV_NAME = /^[\w.-]+$/;

/** `Group__Key=value` lines, the way .NET and this service read environment variables; quoted as dotenv reads them. */
export function exportEnv(entries: readonly EntryRecord[], header: DocumentHeader): string {
  const badNames = entries.filter((e) => e.key.includes('__') || !ENV_NAME.test(e.key.replaceAll(':', '__')));
  if (badNames.length > 0)
    throw cannot(
      'env',
      badNames.map((e) => e.key),
      'are not variable names',
    );
  const lines = [`# ${header.service} ${header.version}, exported ${header.exportedAt}`];
  const unquotable: string[] = [];
  for (const e of entries) {
    if (e.rawValue === null) {
      lines.push(`# ${e.key.replaceAll(':', '__')} is null`);
      continue;
    }
    const quoted = quoteForDotenv(e.rawValue);
    if (quoted === null) unquotable.push(e.key);
    else lines.push(`${e.key.replaceAll(':', '__')}=${quoted}`);
  }
  if (unquotable.length > 0)
    throw cannot('env', unquotable, 'hold quotes of every kind with line breaks; use json or yaml');
  return `${lines.join('\n')}\n`;
}

/** A value as dotenv parses it back exactly: bare, '…', `…`, or "…" (where only \n and \r are escapes). */
function quoteForDotenv(value: string): string | null {
  if (/^[^\s'"`#\\]*$/.test(value)) return value;
  if (!/['\n\r]/.test(value)) return `'${value}'`;
  if (!/[`\r]/.test(value)) return `\`${value}\``;
  if (!/["]|\\[nr]/.test(value)) return `"${value.replaceAll('\n', '\\n').replaceAll('\r', '\\r')}"`;
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Flattens nested values to keys; an object under a known key (a Json entry) is that key's value. */
function flatten(node: Record<string, unknown>, known: ReadonlySet<string>, prefix = ''): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [segment, value] of Object.entries(node)) {
    const key = prefix ? `${prefix}:${segment}` : segment;
    if (isObject(value) && !known.has(key)) out.push(...flatten(value, known, key));
    else out.push([key, value]);
  }
  return out;
}

function metaOf(value: unknown): Partial<EntryMetadata> | null {
  if (!isObject(value)) return null;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    ...(value.type !== undefined ? { type: String(value.type) } : {}),
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    description: text(value.description),
    groupName: text(value.groupName),
    groupDescription: text(value.groupDescription),
    enumDefinition: text(value.enumDefinition),
  };
}

/**
 * The entries of an imported json or yaml file: an exported document (`values` nested or flat, with
 * `entries` metadata), or plain nested values as in an appsettings.json section.
 */
export function parseDocument(document: unknown, knownKeys: ReadonlySet<string>): ImportedEntry[] {
  if (!isObject(document))
    throw AppError.invalid('The file must hold an object of values.', { body: ['is not an object'] });
  const isExport = isObject(document.values);
  const values = isExport ? (document.values as Record<string, unknown>) : document;
  const metadata = isExport && isObject(document.entries) ? document.entries : {};
  const known = new Set([...knownKeys, ...Object.keys(metadata)]);
  const types: Record<string, string[]> = {};
  const entries = flatten(values, known).map(([key, typed]): ImportedEntry => {
    const meta = metaOf(metadata[key]);
    if (meta?.type !== undefined && parseValueType(meta.type) === undefined)
      (types[key] ??= []).push(`type ${meta.type} is not a value type`);
    return { key, value: { typed }, meta };
  });
  if (Object.keys(types).length > 0) throw AppError.invalid('The file names unknown value types.', types);
  return entries;
}

export function parseYamlFile(text: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 100, prettyErrors: true }) as unknown;
  } catch (error) {
    throw AppError.invalid(`The file is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : ''}`);
  }
}

/** `Group__Key=value` lines (dotenv syntax); values are text. */
export function parseEnvFile(text: string): ImportedEntry[] {
  return Object.entries(parseDotenv(text)).map(([name, raw]) => ({
    key: name.replaceAll('__', ':'),
    value: { raw },
    meta: null,
  }));
}
