import type { EntryChange } from '../../core/index.js';
import { typedValue } from '../../protocol.js';

/** Who a flag is evaluated for: an OFREP context's `targetingKey` and string attributes (section 15's instance). */
export interface EvaluationContext {
  /** The instance id a targeting rule sees; null when the context has no `targetingKey`. */
  readonly instanceId: string | null;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * What an instance with a context gets of one entry, in the shape of targeting's `resolveEntry`:
 * the raw value, its generation and where it came from (the entry's value, an override, a rollout).
 */
export interface ResolvedEntry {
  readonly rawValue: string | null;
  readonly generation: number;
  readonly source: 'value' | 'override' | 'rollout';
  readonly overrideIndex: number | null;
  readonly rolloutId: string | null;
}

/**
 * The value an entry resolves to for a context. Targeting (overrides by label, rollouts) is not
 * part of this build yet: every context gets the entry's own value. When it lands, this is the one
 * call to replace with core's `resolveEntry(entry, context)`.
 */
export function resolveForContext(entry: EntryChange, _context: EvaluationContext): ResolvedEntry {
  return { rawValue: entry.value, generation: entry.generation, source: 'value', overrideIndex: null, rolloutId: null };
}

/** OpenFeature's resolution reasons that OFREP answers carry. */
export type FlagReason = 'STATIC' | 'TARGETING_MATCH' | 'SPLIT' | 'DEFAULT';

/**
 * The one mapping from where a value came from to OpenFeature's reason and variant: the entry's
 * value is STATIC, an override TARGETING_MATCH, a rollout SPLIT, and no value at all DEFAULT (the
 * caller's default applies).
 */
export function reasonOf(resolved: ResolvedEntry): { reason: FlagReason; variant: string } {
  if (resolved.rawValue === null) return { reason: 'DEFAULT', variant: 'default' };
  switch (resolved.source) {
    case 'override':
      return { reason: 'TARGETING_MATCH', variant: `override-${resolved.overrideIndex ?? 0}` };
    case 'rollout':
      return { reason: 'SPLIT', variant: `rollout-${resolved.rolloutId ?? ''}` };
    case 'value':
      return { reason: 'STATIC', variant: 'value' };
  }
}

/** An OFREP evaluation of one flag: a success (value omitted for DEFAULT) or a failure. */
export type FlagEvaluation =
  | {
      readonly key: string;
      readonly value?: unknown;
      readonly reason: FlagReason;
      readonly variant: string;
      readonly metadata: { readonly generation: number; readonly versionId: string };
    }
  | {
      readonly key: string;
      readonly errorCode: 'FLAG_NOT_FOUND' | 'PARSE_ERROR';
      readonly errorDetails: string;
    };

/** The answer for a key that no evaluation may reveal (absent, or a secret the caller may not read). */
export const flagNotFound = (key: string): FlagEvaluation => ({
  key,
  errorCode: 'FLAG_NOT_FOUND',
  errorDetails: `No flag "${key}" in this version.`,
});

/**
 * One entry evaluated for a context: its resolved raw value typed by the protocol's value-type rules
 * (Boolean a boolean, Number a number, Array and Json the parsed JSON, every other type its text).
 * A stored value that does not fit its type answers PARSE_ERROR rather than a wrong value.
 */
export function evaluateEntry(entry: EntryChange, versionId: string, context: EvaluationContext): FlagEvaluation {
  const resolved = resolveForContext(entry, context);
  const { reason, variant } = reasonOf(resolved);
  const metadata = { generation: resolved.generation, versionId };
  if (resolved.rawValue === null) return { key: entry.key, reason, variant, metadata };
  const value = typedValue(entry.valueType, resolved.rawValue);
  if (value === undefined) {
    return {
      key: entry.key,
      errorCode: 'PARSE_ERROR',
      errorDetails: `The stored value of "${entry.key}" does not fit its value type.`,
    };
  }
  return { key: entry.key, value, reason, variant, metadata };
}
