import { configSchema, findSchemaChild, nearestKnownKey, type SchemaNode } from './config-schema.js';
import type { ConfigSource, RawEntry } from './config-sources.js';

export interface MergedEntry extends RawEntry {
  /** Position of the source in precedence order (1 = lowest); later sources win. */
  readonly rank: number;
}

export interface ListItem {
  readonly index: number;
  readonly entry: MergedEntry;
}

const arrayIndex = /^(0|[1-9][0-9]*)$/;

/**
 * All sources merged key by key, like .NET configuration: a later source replaces a key of an
 * earlier one, and array elements are keys too (`Scope:0`), so arrays merge by index.
 * Keys are compared ignoring case.
 */
export class ConfigValues {
  private readonly byKey = new Map<string, MergedEntry>();

  constructor(sources: readonly ConfigSource[]) {
    sources.forEach((source, position) => {
      for (const entry of source.entries) {
        const key = normalize(entry.segments);
        // Re-inserting moves the key to the end, so iteration follows the order of last setting.
        this.byKey.delete(key);
        this.byKey.set(key, { ...entry, rank: position + 1 });
      }
    });
  }

  /** The entry set directly at `path` (a canonical `A:B:C` path), if any. */
  get(path: string): MergedEntry | undefined {
    return this.byKey.get(path.toLowerCase());
  }

  /** The array elements `path:0`, `path:1`, ... that some source sets, in index order. */
  listItems(path: string): ListItem[] {
    const prefix = `${path.toLowerCase()}:`;
    const items: ListItem[] = [];
    for (const [key, entry] of this.byKey) {
      if (!key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length);
      if (arrayIndex.test(rest)) items.push({ index: Number(rest), entry });
    }
    return items.sort((a, b) => a.index - b.index);
  }

  /**
   * Keys inside our sections that the server does not know, and values given where a section
   * is expected. Each message names the key as the source spelled it and where it came from.
   */
  findStructureIssues(): string[] {
    const issues: string[] = [];
    for (const entry of this.byKey.values()) {
      const issue = checkStructure(entry);
      if (issue !== undefined) issues.push(issue);
    }
    return issues;
  }
}

function checkStructure(entry: MergedEntry): string | undefined {
  let node: SchemaNode = configSchema;
  const canonical: string[] = [];
  for (const [position, segment] of entry.segments.entries()) {
    const isLast = position === entry.segments.length - 1;
    if (node === 'list' && isLast && arrayIndex.test(segment)) return undefined;
    const child: { readonly name: string; readonly node: SchemaNode } | undefined =
      typeof node === 'object' ? findSchemaChild(node, segment) : undefined;
    if (child === undefined) {
      const meant = nearestKnownKey(entry.segments);
      const hint = meant === undefined ? '' : `; did you mean ${meant}?`;
      return `unknown key ${entry.segments.join(':')} (from ${entry.origin})${hint}`;
    }
    node = child.node;
    canonical.push(child.name);
  }
  // A null or empty value where a section belongs (`"Tls": null`, `"Tls": {}`) just sets nothing.
  if (typeof node === 'object' && entry.value !== null && entry.value.trim() !== '') {
    return `${canonical.join(':')} is a section with keys, not a single value (from ${entry.origin})`;
  }
  return undefined;
}

function normalize(segments: readonly string[]): string {
  return segments.join(':').toLowerCase();
}
