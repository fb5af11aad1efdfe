import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { array, boolean, dateTime, defineConfig, enumOf, group, json, number, string, timeSpan } from './index.js';
import { parseTimeSpan } from './internal/protocol.js';

const invalidArgument = (message: RegExp) =>
  expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });

describe('time spans, as the server and .NET write them', () => {
  it.each([
    ['00:05:00', 300_000],
    ['23:59:59', 86_399_000],
    ['1.00:00:00', 86_400_000],
    ['-00:00:01.5', -1500],
    ['00:00:00.0000001', 0.0001],
    ['10.02:03:04.1234567', ((10 * 24 + 2) * 3600 + 3 * 60 + 4) * 1000 + 123.4567],
  ])('reads %s as %d ms and writes it back', (text, ms) => {
    const setting = timeSpan();
    expect(setting.parse(text)).toBeCloseTo(ms, 6);
    expect(parseTimeSpan(setting.format(ms))).toBeCloseTo(ms, 6);
  });

  it('writes the canonical text', () => {
    const setting = timeSpan();
    expect(setting.format(300_000)).toBe('00:05:00');
    expect(setting.format(1500)).toBe('00:00:01.5000000');
    expect(setting.format(-90_061_001)).toBe('-1.01:01:01.0010000');
    expect(setting.format(0)).toBe('00:00:00');
  });

  it.each(['5:00', '24:00:00', '00:60:00', '00:00:00.12345678', 'abc', ''])('refuses %j', (text) => {
    expect(() => timeSpan().parse(text)).toThrow(expect.objectContaining({ code: 'INVALID_VALUE' }));
  });
});

describe('reading remote values', () => {
  it('reads booleans in any case and numbers as the server checks them', () => {
    expect(boolean().parse('True')).toBe(true);
    expect(boolean().parse('FALSE')).toBe(false);
    expect(() => boolean().parse('yes')).toThrow(/is not true or false/);
    expect(number().parse('-12')).toBe(-12);
    expect(number().parse('1e3')).toBe(1000);
    expect(number().parse('.5')).toBe(0.5);
    expect(() => number().parse('0x10')).toThrow(/decimal number/);
    expect(() => number().parse('1e999')).toThrow(/decimal number/);
  });

  it('reads ISO 8601 date-times; without an offset as UTC', () => {
    expect(dateTime().parse('2026-11-21')).toEqual(new Date('2026-11-21T00:00:00Z'));
    expect(dateTime().parse('2026-11-21T12:30')).toEqual(new Date('2026-11-21T12:30:00Z'));
    expect(dateTime().parse('2026-11-21 12:30:15,25+0130')).toEqual(new Date('2026-11-21T11:00:15.250Z'));
    expect(dateTime().parse('2026-11-21T12:00:00.0000000Z')).toEqual(new Date('2026-11-21T12:00:00Z'));
    for (const bad of ['2026-02-30', '2026-13-01', '21.11.2026', '2026-11-21T25:00']) {
      expect(() => dateTime().parse(bad)).toThrow(/ISO 8601/);
    }
  });

  it('reads JSON arrays and objects, validated and frozen', () => {
    const hosts = array(z.string().min(1));
    expect(hosts.parse('["a","b"]')).toEqual(['a', 'b']);
    expect(Object.isFrozen(hosts.parse('["a"]'))).toBe(true);
    expect(() => hosts.parse('["a",""]')).toThrow(/item 1 fails its schema \(/);
    expect(() => hosts.parse('{"a":1}')).toThrow(/is not a JSON array/);
    expect(() => json().parse('[1]')).toThrow(/is not a JSON object/);
    expect(() => json().parse('{oops')).toThrow(/is not a JSON object/);
    const limits = json(z.object({ max: z.number() }));
    expect(() => limits.parse('{"max":"1"}')).toThrow(/fails its schema \(max: /);
  });

  it('reads enums exactly', () => {
    expect(enumOf(['Live', 'Test']).parse('Live')).toBe('Live');
    expect(() => enumOf(['Live', 'Test']).parse('live')).toThrow(/is not one of Live, Test/);
  });
});

describe('declaring a schema', () => {
  it('refuses bad defaults at once, naming the builder and the value', () => {
    expect(() => number({ default: Number.NaN })).toThrow(
      invalidArgument(/^number\(\): the default NaN is not a finite number/),
    );
    expect(() => enumOf(['A', 'B'], { default: 'C' as 'A' })).toThrow(invalidArgument(/enumOf\(\): the default "C"/));
    expect(() => timeSpan({ default: '5 minutes' })).toThrow(invalidArgument(/timeSpan\(\): the default "5 minutes"/));
    expect(() => dateTime({ default: new Date('nope') })).toThrow(invalidArgument(/is not a valid Date/));
    expect(() => json({ default: [1] })).toThrow(invalidArgument(/use array\(\) for arrays/));
    expect(() => json(z.object({ n: z.number() }), { default: { n: 'x' as unknown as number } })).toThrow(
      invalidArgument(/json\(\): the default .* fails its schema/),
    );
    expect(() => string({ default: 5 as unknown as string })).toThrow(invalidArgument(/is not a string/));
  });

  it('refuses bad enum lists, names and structure', () => {
    expect(() => enumOf([] as unknown as ['a'])).toThrow(invalidArgument(/non-empty list of distinct strings/));
    expect(() => enumOf(['a', 'a'])).toThrow(invalidArgument(/distinct/));
    expect(() => enumOf(['a|b'])).toThrow(invalidArgument(/"a\|b"/));
    expect(() => group({ 'Bad:Name': string() })).toThrow(invalidArgument(/"Bad:Name" must be non-empty without ":"/));
    expect(() => group({ X: 5 as never })).toThrow(invalidArgument(/X is neither a setting/));
    // The server refuses these key segments: said at once, not at registration.
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      expect(() => group({ [name]: string() })).toThrow(invalidArgument(new RegExp(`"${name}" is reserved`)));
      expect(() => defineConfig({ [name]: group({ A: string() }) })).toThrow(invalidArgument(/is reserved/));
    }
    expect(() => defineConfig({ Loose: string() as never })).toThrow(invalidArgument(/Loose must be a group/));
    expect(() => defineConfig({ G: group({ [`K${'x'.repeat(600)}`]: string() }) })).toThrow(
      invalidArgument(/must be 1 to 512 characters long/),
    );
    expect(() => defineConfig({ G: group({ constructor: string() }) })).toThrow(
      invalidArgument(/the name "constructor" is reserved/),
    );
    expect(() => defineConfig({ prototype: group({ A: string() }) })).toThrow(
      invalidArgument(/the name "prototype" is reserved/),
    );
  });

  it('keeps typed defaults frozen and separate from what was passed', () => {
    const given = [1, 2];
    const setting = array<number>({ default: given });
    given.push(3);
    expect(setting.default).toEqual([1, 2]);
    expect(Object.isFrozen(setting.default)).toBe(true);
    expect(timeSpan({ default: 1500 }).default).toBe(1500);
    expect(dateTime({ default: '2026-01-01T00:00:00Z' }).default).toEqual(new Date('2026-01-01T00:00:00Z'));
  });
});
