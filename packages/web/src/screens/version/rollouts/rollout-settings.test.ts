import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ROLLOUT,
  durationWords,
  parseDuration,
  parseSteps,
  rolloutRules,
  rolloutSettings,
} from './rollout-settings';

const local = (ms: number) => {
  const t = new Date(ms);
  const p2 = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p2(t.getMonth() + 1)}-${p2(t.getDate())}T${p2(t.getHours())}:${p2(t.getMinutes())}`;
};

describe('the settings of Roll out…', () => {
  it('reads steps as the server takes them, and says what is wrong with others', () => {
    expect(parseSteps('10, 50, 100')).toEqual([10, 50, 100]);
    expect(parseSteps('1 5% 25 100')).toEqual([1, 5, 25, 100]);
    expect(parseSteps('100')).toEqual([100]);
    expect(parseSteps('')).toBe('Enter the percentages, e.g. 10, 50, 100');
    expect(parseSteps('10, 50')).toBe('The last step is 100');
    expect(parseSteps('50, 10, 100')).toBe('Each step is above the one before');
    expect(parseSteps('0, 100')).toBe('“0” is no percentage above 0, at most 100');
    expect(parseSteps('ten, 100')).toBe('“ten” is no percentage above 0, at most 100');
    expect(parseSteps('1 2 3 4 5 6 7 8 9 10 100')).toBe('At most 10 steps');
  });

  it('reads step and bake times in seconds, minutes, hours or days, and says them in words', () => {
    expect(parseDuration('60')).toBe(60);
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('5m')).toBe(300);
    expect(parseDuration('1.5 h')).toBe(5400);
    expect(parseDuration('2 days')).toBe(172_800);
    expect(parseDuration('0.5s')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
    expect(durationWords(5400)).toBe('1 h 30 min');
    expect(rolloutRules.stepSeconds?.('0', DEFAULT_ROLLOUT)).toBe('Step time is from 1 s to 1 d');
    expect(rolloutRules.bakeSeconds?.('0', DEFAULT_ROLLOUT)).toBeNull();
    expect(rolloutRules.bakeSeconds?.('8d', DEFAULT_ROLLOUT)).toBe('Bake time is from 0 s to 7 d');
    expect(rolloutRules.stepSeconds?.('later', DEFAULT_ROLLOUT)).toBe(
      'Step time: a number of seconds, or with a unit (90s, 5m, 2h)',
    );
  });

  it('asks for a start time ahead, at most 90 days, only when the start is not now', () => {
    const at = { ...DEFAULT_ROLLOUT, start: 'at' as const };
    expect(rolloutRules.startAt?.('', DEFAULT_ROLLOUT)).toBeNull();
    expect(rolloutRules.startAt?.('', at)).toBe('Choose the start time');
    expect(rolloutRules.startAt?.(local(Date.now() - 3_600_000), at)).toMatch(/^The start time has passed/);
    expect(rolloutRules.startAt?.(local(Date.now() + 91 * 86_400_000), at)).toBe('At most 90 days ahead');
    expect(rolloutRules.startAt?.(local(Date.now() + 86_400_000), at)).toBeNull();
    expect(rolloutRules.disconnectedShare?.('0', DEFAULT_ROLLOUT)).toBe('A share above 0, at most 100 %');
    expect(rolloutRules.disconnectedShare?.('101', DEFAULT_ROLLOUT)).toBe('A share above 0, at most 100 %');
  });

  it('makes the settings the server takes: the defaults, labels to match and a start time', () => {
    expect(rolloutSettings(DEFAULT_ROLLOUT, [])).toEqual({
      steps: [10, 50, 100],
      stepSeconds: 60,
      bakeSeconds: 300,
      startAt: null,
      match: { labels: {} },
      rollback: { disconnectedShare: 0.2 },
    });
    const start = local(Date.now() + 86_400_000);
    const body = rolloutSettings(
      { ...DEFAULT_ROLLOUT, steps: '25 100', start: 'at', startAt: start, disconnectedShare: '5' },
      ['region=eu', 'tier=gold'],
    );
    expect(body).toMatchObject({
      steps: [25, 100],
      startAt: new Date(start).toISOString(),
      match: { labels: { region: 'eu', tier: 'gold' } },
      rollback: { disconnectedShare: 0.05 },
    });
  });
});
