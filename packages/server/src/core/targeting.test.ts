import { describe, expect, it } from 'vitest';
import {
  fnv1a32,
  inRollout,
  parseLabels,
  resolutionKey,
  resolveEntry,
  UNTARGETED,
  type EntryOverride,
} from './targeting.js';
import { referenceFnv1a } from '@realtime-config/test-support/rollout-fixtures';

const instance = (labels: Record<string, string>, instanceId: string | null = null) => ({
  instanceId,
  labels: new Map(Object.entries(labels)),
});

describe('resolveEntry', () => {
  const overrides: EntryOverride[] = [
    { labels: { region: 'eu', tier: 'gold' }, rawValue: 'eu-gold' },
    { labels: { region: 'eu' }, rawValue: 'eu' },
    { labels: { tier: 'gold' }, rawValue: null },
  ];
  const entry = { rawValue: 'value', generation: 7, overrides };

  it('gives the first override whose labels the instance has, all of them', () => {
    expect(resolveEntry(entry, instance({ tier: 'gold', region: 'eu', zone: 'b' }))).toEqual({
      rawValue: 'eu-gold',
      generation: 7,
      source: 'override',
      overrideIndex: 0,
      rolloutId: null,
    });
    expect(resolveEntry(entry, instance({ region: 'eu' }))).toMatchObject({ rawValue: 'eu', overrideIndex: 1 });
    expect(resolveEntry(entry, instance({ tier: 'gold' }))).toMatchObject({ rawValue: null, overrideIndex: 2 });
  });

  it("gives the entry's value to an instance that matches none, or declares nothing", () => {
    const value = { rawValue: 'value', generation: 7, source: 'value', overrideIndex: null, rolloutId: null };
    expect(resolveEntry(entry, instance({ region: 'us' }, 'i-1'))).toEqual(value);
    expect(resolveEntry(entry, instance({ region: 'EU' }))).toEqual(value);
    expect(resolveEntry(entry, UNTARGETED)).toEqual(value);
    expect(resolveEntry({ rawValue: 'value', generation: 7 }, instance({ region: 'eu' }))).toEqual(value);
  });

  it('groups instances by what they resolve, not by their labels', () => {
    const targeted = [entry, { overrides: [{ labels: { zone: 'b' }, rawValue: 'z' }] }];
    expect(resolutionKey(targeted, instance({ region: 'us' }))).toBeNull();
    expect(resolutionKey(targeted, instance({ region: 'eu' }))).toBe(
      resolutionKey(targeted, instance({ region: 'eu', build: '42' }, 'i-9')),
    );
    expect(resolutionKey(targeted, instance({ region: 'eu' }))).not.toBe(
      resolutionKey(targeted, instance({ region: 'eu', zone: 'b' })),
    );
  });
});

describe('parseLabels', () => {
  it('reads k=v pairs with percent-encoded keys and values; a later key wins', () => {
    expect(parseLabels('region=eu, team=pay%2Cments,expr=a%3Db%25,region=us')).toEqual([
      ['team', 'pay,ments'],
      ['expr', 'a=b%'],
      ['region', 'us'],
    ]);
    expect(parseLabels('')).toEqual([]);
    expect(parseLabels(undefined)).toEqual([]);
  });

  it('refuses what is not key=value, naming where it came from', () => {
    expect(() => parseLabels('region', 'labels')).toThrow(/^labels: "region" is not key=value/);
    expect(() => parseLabels('k=%E0%A4%A')).toThrow(/x-rc-labels/);
  });
});

describe('the rollout hash rule', () => {
  it('is FNV-1a 32 over UTF-8: the published test vectors and a table computed independently', () => {
    // Vectors published with FNV (Fowler, Noll, Vo).
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    const rolloutId = '4f9a1c3e-2b7d-4e8a-9c61-0d5e7f3a2b19';
    const ids = ['pod-1', 'pod-2', 'web-7f9c', 'i-0123456789abcdef0', 'ünïcødé-实例', '', 'a:b', 'x'.repeat(200)];
    for (const id of ids) expect(fnv1a32(`${rolloutId}:${id}`)).toBe(referenceFnv1a(`${rolloutId}:${id}`));
  });

  it('puts an instance in at a step when its hash mod 10000 is below the step × 100, stably', () => {
    const rollout = { id: 'r-1', match: {}, percent: 10 };
    const ids = Array.from({ length: 2000 }, (_, i) => `instance-${i}`);
    const bucket = (id: string) => referenceFnv1a(`r-1:${id}`) % 10000;
    for (const percent of [1, 10, 50, 99, 100]) {
      const inAt = ids.filter((id) => inRollout({ ...rollout, percent }, instance({}, id)));
      expect(inAt).toEqual(ids.filter((id) => bucket(id) < percent * 100));
    }
    // Growing: whoever is in at 10 % is in at 50 %.
    const at10 = ids.filter((id) => inRollout({ ...rollout, percent: 10 }, instance({}, id)));
    expect(at10.every((id) => inRollout({ ...rollout, percent: 50 }, instance({}, id)))).toBe(true);
    expect(at10.length).toBeGreaterThan(150);
    expect(at10.length).toBeLessThan(250);
  });

  it('takes an instance without an id only at 100 %, and only instances with the labels it matches', () => {
    const rollout = { id: 'r-1', match: { region: 'eu' }, percent: 99 };
    expect(inRollout(rollout, instance({ region: 'eu' }))).toBe(false);
    expect(inRollout({ ...rollout, percent: 100 }, instance({ region: 'eu' }))).toBe(true);
    expect(inRollout({ ...rollout, percent: 100 }, instance({ region: 'us' }, 'pod-1'))).toBe(false);
    expect(inRollout({ ...rollout, percent: 0 }, instance({ region: 'eu' }, 'pod-1'))).toBe(false);
  });

  it('resolves an override first, then the rollout (one generation on), then the value', () => {
    const entry = {
      rawValue: 'old',
      generation: 4,
      overrides: [{ labels: { region: 'eu' }, rawValue: 'eu' }],
      rollout: { id: 'r-1', rawValue: 'new', percent: 100, match: {} },
    };
    expect(resolveEntry(entry, instance({ region: 'eu' }, 'pod-1'))).toMatchObject({ rawValue: 'eu', generation: 4 });
    expect(resolveEntry(entry, instance({}, 'pod-1'))).toEqual({
      rawValue: 'new',
      generation: 5,
      source: 'rollout',
      overrideIndex: null,
      rolloutId: 'r-1',
    });
    expect(resolveEntry({ ...entry, rollout: { ...entry.rollout, percent: 0 } }, instance({}, 'pod-1'))).toMatchObject({
      rawValue: 'old',
      generation: 4,
      source: 'value',
    });
    const targeted = [entry];
    expect(resolutionKey(targeted, instance({}, 'pod-1'))).not.toBeNull();
    expect(resolutionKey([{ rollout: { ...entry.rollout, percent: 0 } }], instance({}, 'pod-1'))).toBeNull();
  });
});
