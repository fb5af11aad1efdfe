import { parseValueType, valueTypeName } from '../../protocol.js';
import {
  redactedValue,
  type EntryOverride,
  type EntryRecord,
  type EntrySchema,
  type SecretCipher,
} from '../../core/index.js';
import { dictionary, type Dictionary } from '../../platform/dictionary.js';
import { AppError } from '../../platform/errors.js';
import { parseEnvText } from './file-parsers.js';
import { toTyped } from './typed-values.js';
import { yamlTextOf } from './yaml-text.js';

export type ConfigFileFormat = 'json' | 'yaml' | 'env';

/** What a file says of one entry besides its value (json and yaml files carry it). */
export interface EntryMetadata {
  readonly type: string;
  readonly name: string;
  readonly description: string | null;
  readonly groupName: string | null;
  readonly groupDescription: string | null;
  readonly enumDefinition: string | null;
  /** The JSON Schema its value must meet; null for none (files written before schemas lack it). */
  readonly schema?: EntrySchema | null;
  /**
   * Values for instances by label (raw text, as the REST API has them); a secret's values are null
   * unless exported with includeSecrets. Absent in files written before overrides.
   */
  readonly overrides?: readonly EntryOverride[];
  /** A secret; without its value (null) unless exported with includeSecrets. */
  readonly isSecret?: boolean;
  readonly redacted?: boolean;
  readonly fingerprint?: string | null;
}

/** How an export treats secrets: left out (redacted, with fingerprints) unless included. */
export interface ExportSecrets {
  readonly cipher: SecretCipher;
  readonly include: boolean;
}

const leftOut = (e: EntryRecord, secrets: ExportSecrets): boolean => e.isSecret && !secrets.include;

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

/**
 * Values nested by key segments, as appsettings.json has them; refused when a key is also a prefix
 * of another. Every level is a dictionary: a segment such as `__proto__` (a key stored before such
 * segments were refused) is an ordinary member, never the way to Object.prototype.
 */
function nest(values: ReadonlyArray<readonly [string, unknown]>): Dictionary<unknown> {
  const keys = new Set(values.map(([key]) => key));
  const clashing = [...keys].filter((key) =>
    key.split(':').some((_, i, s) => i > 0 && keys.has(s.slice(0, i).join(':'))),
  );
  if (clashing.length > 0) throw cannot('nested JSON/YAML', clashing, 'sit under another key; use flat=true');
  const root = dictionary<unknown>();
  for (const [key, value] of values) {
    const segments = key.split(':');
    let node = root;
    for (const segment of segments.slice(0, -1)) node = (node[segment] ??= dictionary()) as Dictionary<unknown>;
    node[segments.at(-1) as string] = value;
  }
  return root;
}

/** The exported document of a version: typed values (nested or flat) and every entry's type and metadata. */
export function exportDocument(
  entries: readonly EntryRecord[],
  header: DocumentHeader,
  flat: boolean,
  secrets: ExportSecrets,
) {
  const values = entries.map((e) => [e.key, leftOut(e, secrets) ? null : toTyped(e.valueType, e.rawValue)] as const);
  return {
    ...header,
    layout: flat ? 'flat' : 'nested',
    values: flat ? dictionary(values) : nest(values),
    entries: dictionary(
      entries.map((e): [string, EntryMetadata] => [
        e.key,
        {
          type: valueTypeName(e.valueType),
          name: e.name,
          description: e.description,
          groupName: e.groupName,
          groupDescription: e.groupDescription,
          enumDefinition: e.enumDefinition,
          schema: e.schema,
          overrides: e.overrides.map((o) => ({
            labels: o.labels,
            rawValue: leftOut(e, secrets) ? null : o.rawValue,
          })),
          ...(e.isSecret ? { isSecret: true } : {}),
          ...(leftOut(e, secrets)
            ? { redacted: true, fingerprint: redactedValue(secrets.cipher, e.rawValue, e.unreadable).fingerprint }
            : {}),
        },
      ]),
    ),
  };
}

export function exportYaml(document: ReturnType<typeof exportDocument>): string {
  return yamlTextOf(document);
}

const ENV_NAME = /^[\w.-]+$/;

/** `Group__Key=value` lines, the way .NET and this service read environment variables; quoted as dotenv reads them. */
export function exportEnv(entries: readonly EntryRecord[], header: DocumentHeader, secrets: ExportSecrets): string {
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
    if (leftOut(e, secrets)) {
      lines.push(`# ${e.key}: secret, not exported`);
      continue;
    }
    if (e.rawValue === null) {
      lines.push(`# ${e.key.replaceAll(':', '__')} is null`);
      continue;
    }
    const quoted = quoteForDotenv(e.rawValue);
    if (quoted === null) unquotable.push(e.key);
    else lines.push(`${e.key.replaceAll(':', '__')}=${quoted}`);
  }
  if (unquotable.length > 0)
    throw cannot(
      'env',
      unquotable,
      'hold a line break together with \', ` and " (or with a written-out \\n), or need quotes and end with a backslash: dotenv cannot read them back exactly; use json or yaml',
    );
  return `${lines.join('\n')}\n`;
}

/**
 * A value as dotenv parses it back exactly. Bare when dotenv reads it as it is: it takes the rest of
 * the line up to a `#`, trimmed, and strips quotes around it. Otherwise quoted with a quote the value
 * does not hold: '…' or `…` (taken as they are, line breaks included; dotenv turns a carriage return
 * into a line break, so none may hold one), or "…" (where \n and \r are escapes, so the value's line
 * breaks are written as them). A backslash before the closing quote would escape it, so a quoted
 * value may not end with one. Null when nothing fits.
 */
function quoteForDotenv(value: string): string | null {
  if (value === '' || /^[^\s'"`#](?:[^#\r\n]*[^\s#])?$/.test(value)) return value;
  if (value.endsWith('\\')) return null;
  if (!/['\r]/.test(value)) return `'${value}'`;
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
    // Anything but null or an object is kept as it is, for the import to refuse with its key.
    ...(value.schema !== undefined ? { schema: value.schema as EntrySchema | null } : {}),
    ...(value.isSecret === true ? { isSecret: true } : {}),
    ...(value.overrides !== undefined ? { overrides: overridesOf(value.overrides) } : {}),
  };
}

/** A file's overrides as sent; the import checks them like the REST API does (requireValidOverrides). */
function overridesOf(value: unknown): EntryOverride[] {
  if (!Array.isArray(value)) throw AppError.invalid('An entry\'s "overrides" must be a list.');
  return value.map((o: unknown): EntryOverride => {
    const labels = isObject(o) && isObject(o.labels) ? o.labels : null;
    const rawValue = isObject(o) ? o.rawValue : undefined;
    if (
      !labels ||
      (rawValue !== null && typeof rawValue !== 'string') ||
      !Object.values(labels).every((v) => typeof v === 'string')
    )
      throw AppError.invalid('Each override must be {"labels": {…strings}, "rawValue": text or null}.');
    return { labels: { ...(labels as Record<string, string>) }, rawValue };
  });
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
  // A Map: a key such as `constructor` must not find Object.prototype's member.
  const metadata = new Map(isExport && isObject(document.entries) ? Object.entries(document.entries) : []);
  const known = new Set([...knownKeys, ...metadata.keys()]);
  const types = dictionary<string[]>();
  const entries = flatten(values, known).map(([key, typed]): ImportedEntry => {
    const meta = metaOf(metadata.get(key));
    if (meta?.type !== undefined && parseValueType(meta.type) === undefined)
      (types[key] ??= []).push(`type ${meta.type} is not a value type`);
    return { key, value: { typed }, meta };
  });
  if (Object.keys(types).length > 0) throw AppError.invalid('The file names unknown value types.', types);
  return entries;
}

/** `Group__Key=value` lines (dotenv syntax); values are text. */
export function parseEnvFile(text: string): ImportedEntry[] {
  return parseEnvText(text).map(([name, raw]) => ({ key: name.replaceAll('__', ':'), value: { raw }, meta: null }));
}
