import { resolveChange, type EntryChange, type ResolvedEntry, type TargetedInstance } from '../../core/index.js';
import { typedValue } from '../../protocol.js';

/**
 * Who a flag is evaluated for: an OFREP context's `targetingKey` as the instance id and its string
 * attributes as labels, so overrides and rollouts apply per user as they do per instance.
 */
export type EvaluationContext = TargetedInstance;

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
  const resolved = resolveChange(entry, context);
  // The matching override of a secret that cannot be decrypted: nobody receives it, as on a stream.
  if (resolved.unreadable) return flagNotFound(entry.key);
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
