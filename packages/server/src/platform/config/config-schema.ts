import { dictionary, type Dictionary } from '../dictionary.js';
import { CONFIG_KEYS, type KeyDefinition } from './config-keys.js';
import { nearestName } from './nearest-name.js';

/**
 * The keys the server understands, in their canonical spelling. Used to reject unknown keys
 * inside our sections (typo protection) and to name keys in messages the way the docs spell them.
 * `value` is a single value; `list` is a string array (JSON array, or `Key:0`, `Key:1`, ...).
 */
export type SchemaNode = 'value' | 'list' | SchemaSection;

export interface SchemaSection {
  readonly [key: string]: SchemaNode;
}

/** The tree of sections and keys, built from the one table of keys (config-keys.ts). */
export const configSchema: SchemaSection = buildSchema();

function buildSchema(): SchemaSection {
  const root = dictionary<SchemaNode>();
  for (const [key, definition] of Object.entries(CONFIG_KEYS) as Array<[string, KeyDefinition]>) {
    const segments = key.split(':');
    let section = root;
    for (const segment of segments.slice(0, -1))
      section = (section[segment] ??= dictionary()) as Dictionary<SchemaNode>;
    section[segments.at(-1) as string] = definition.kind.type === 'list' ? 'list' : 'value';
  }
  return root;
}

/** Finds a child of a section ignoring case; returns its canonical name and node. */
export function findSchemaChild(
  section: SchemaSection,
  name: string,
): { readonly name: string; readonly node: SchemaNode } | undefined {
  const wanted = name.toLowerCase();
  for (const [childName, node] of Object.entries(section)) {
    if (childName.toLowerCase() === wanted) return { name: childName, node };
  }
  return undefined;
}

export function isKnownSection(name: string): boolean {
  return findSchemaChild(configSchema, name) !== undefined;
}

/** The server's top-level sections, in their canonical spelling. */
export const sectionNames: readonly string[] = Object.keys(configSchema);

/**
 * The known key closest to a path that is not one (`Sever:Prot` → `Server:Port`): each segment as
 * given when it is known, else the nearest known name at that level. Undefined when some segment is
 * near no known name.
 */
export function nearestKnownKey(segments: readonly string[]): string | undefined {
  let node: SchemaNode = configSchema;
  const path: string[] = [];
  for (const segment of segments) {
    if (typeof node !== 'object') break;
    const section: SchemaSection = node;
    const exact = findSchemaChild(section, segment);
    const name = exact?.name ?? nearestName(segment, Object.keys(section));
    if (name === undefined) return undefined;
    path.push(name);
    node = section[name] ?? 'value';
  }
  return path.join(':');
}
