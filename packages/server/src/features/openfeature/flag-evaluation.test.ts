import { describe, expect, it } from 'vitest';
import type { ResolvedEntry } from '../../core/index.js';
import { reasonOf } from './flag-evaluation.js';

const resolved = (over: Partial<ResolvedEntry>): ResolvedEntry => ({
  rawValue: '1',
  generation: 3,
  source: 'value',
  overrideIndex: null,
  rolloutId: null,
  ...over,
});

/** The one mapping from where a value came from (core's resolveEntry) to OpenFeature's reason and variant. */
describe('reasonOf', () => {
  it('names the entry value STATIC, an override TARGETING_MATCH, a rollout SPLIT and no value DEFAULT', () => {
    expect(reasonOf(resolved({}))).toEqual({ reason: 'STATIC', variant: 'value' });
    expect(reasonOf(resolved({ source: 'override', overrideIndex: 2 }))).toEqual({
      reason: 'TARGETING_MATCH',
      variant: 'override-2',
    });
    expect(reasonOf(resolved({ source: 'rollout', rolloutId: 'r-1' }))).toEqual({
      reason: 'SPLIT',
      variant: 'rollout-r-1',
    });
    // No value at all is DEFAULT whatever chose it: the caller's default applies.
    expect(reasonOf(resolved({ rawValue: null, source: 'override', overrideIndex: 0 }))).toEqual({
      reason: 'DEFAULT',
      variant: 'default',
    });
  });
});
