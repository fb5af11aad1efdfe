import { describe, expect, it } from 'vitest';
import { parseLabels, resolutionKey, resolveEntry, UNTARGETED, type EntryOverride } from './targeting.js';

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
    expect(resolutionKey(targeted, new Map([['region', 'us']]))).toBeNull();
    expect(resolutionKey(targeted, new Map([['region', 'eu']]))).toBe(
      resolutionKey(
        targeted,
        new Map([
          ['region', 'eu'],
          ['build', '42'],
        ]),
      ),
    );
    expect(resolutionKey(targeted, new Map([['region', 'eu']]))).not.toBe(
      resolutionKey(
        targeted,
        new Map([
          ['region', 'eu'],
          ['zone', 'b'],
        ]),
      ),
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
