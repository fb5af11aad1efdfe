import type { ConfigSchema, Fields, Group, Setting } from '../schema.js';

/** One declared key with what the client needs to register, read and place it. */
export interface PlannedSetting {
  /** `Group:Name` (nested groups add segments). */
  readonly key: string;
  /** Property path in `values`: the key's segments. */
  readonly path: readonly string[];
  readonly setting: Setting<unknown>;
  /** The default as raw text, as sent in CreateVersion; null without a default. */
  readonly defaultRaw: string | null;
}

/** A group that holds settings directly: registered as one class. */
export interface PlannedClass {
  /** The group's key path (`Payments`, `Payments:Retry`). */
  readonly name: string;
  readonly description: string | undefined;
  readonly settings: readonly PlannedSetting[];
}

/** The schema flattened once: what registration sends, what the values are built from. */
export interface SchemaPlan {
  readonly settings: readonly PlannedSetting[];
  readonly byKey: ReadonlyMap<string, PlannedSetting>;
  readonly classes: readonly PlannedClass[];
}

/** Flattens a schema (validated by defineConfig) into its keys and classes, in declaration order. */
export function planSchema(schema: ConfigSchema): SchemaPlan {
  const settings: PlannedSetting[] = [];
  const classes: PlannedClass[] = [];
  const visit = (group: Group<Fields>, path: readonly string[]): void => {
    const own: PlannedSetting[] = [];
    for (const [name, member] of Object.entries(group.fields)) {
      if (member.kind === 'group') continue;
      const memberPath = [...path, name];
      const setting = member;
      const defaultRaw = setting.default === null ? null : setting.format(setting.default);
      own.push({ key: memberPath.join(':'), path: memberPath, setting, defaultRaw });
    }
    if (own.length > 0) classes.push({ name: path.join(':'), description: group.description, settings: own });
    settings.push(...own);
    for (const [name, member] of Object.entries(group.fields)) {
      if (member.kind === 'group') visit(member, [...path, name]);
    }
  };
  for (const [name, group] of Object.entries(schema.groups)) visit(group, [name]);
  return { settings, byKey: new Map(settings.map((s) => [s.key, s])), classes };
}

type Tree = { readonly [name: string]: unknown };

/**
 * The nested, frozen values object (setting values are frozen when parsed) for `values` (typed values by key). Groups in which no
 * key changed are taken over from `previous`, so a reference to an unchanged group stays equal.
 */
export function buildValues(
  schema: ConfigSchema,
  valueOf: (key: string) => unknown,
  previous?: Tree,
  changed?: ReadonlySet<string>,
): Tree {
  const build = (fields: Fields, prefix: string, before: Tree | undefined): Tree => {
    if (before && changed && ![...changed].some((key) => key.startsWith(prefix))) return before;
    const entries = Object.entries(fields).map(([name, member]): [string, unknown] => {
      const key = `${prefix}${name}`;
      if (member.kind === 'group') return [name, build(member.fields, `${key}:`, before?.[name] as Tree | undefined)];
      return [name, valueOf(key)];
    });
    return Object.freeze(Object.fromEntries(entries));
  };
  return build(schema.groups as unknown as Fields, '', previous);
}
