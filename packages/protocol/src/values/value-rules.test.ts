import { describe, expect, it } from 'vitest';
import { ValueType } from '../gen/konfigo/client/service_pb.js';
import {
  checkKey,
  checkValue,
  enumValues,
  formatDateTime,
  formatTimeSpan,
  MAX_RAW_VALUE_LENGTH,
  parseDateTime,
  parseTimeSpan,
  parseValueType,
  VALUE_TYPE_NAMES,
  valueTypeName,
} from '../index.js';

const MAX_SPAN = '10675199.02:48:05.4775807';
const MIN_SPAN = '-10675199.02:48:05.4775808';

const ok = (type: ValueType, samples: string[], enumDefinition: string | null = null) =>
  samples.filter((s) => checkValue(type, s, enumDefinition) !== null);
const refused = (type: ValueType, samples: string[], enumDefinition: string | null = null) =>
  samples.filter((s) => checkValue(type, s, enumDefinition) === null);

describe('the value rules, by type', () => {
  it('takes true and false in any case as Boolean, nothing else', () => {
    expect(ok(ValueType.BOOLEAN, ['true', 'False', 'TRUE', 'fAlSe'])).toEqual([]);
    expect(refused(ValueType.BOOLEAN, ['yes', '1', '', ' true', 'true ', 'truee'])).toEqual([]);
    expect(checkValue(ValueType.BOOLEAN, 'yes', null)).toBe('must be true or false');
  });

  it('takes finite decimal numbers as Number', () => {
    expect(
      ok(ValueType.NUMBER, ['0', '-12', '3.5', '1e3', '.5', '5.', '+7', '1E-7', '1.7976931348623157e308']),
    ).toEqual([]);
    expect(
      refused(ValueType.NUMBER, ['1e', 'abc', '', '0x10', 'Infinity', 'NaN', '1,5', ' 1', '1e999', '-1e309']),
    ).toEqual([]);
    expect(checkValue(ValueType.NUMBER, '1e999', null)).toBe('must be a decimal number');
  });

  it('takes ISO 8601 date-times of real days and times as DateTime', () => {
    expect(
      ok(ValueType.DATE_TIME, [
        '2026-11-21',
        '2026-11-21T12:00',
        '2026-11-21 12:00:00,5',
        '2026-11-21T12:00:00.123456789+01:00',
        '2026-11-21T12:00:00-0530',
        '2026-11-21T12:00:00+14',
        '2026-11-21T12:00:00+23:59',
        '2024-02-29T00:00:00Z',
        '2000-02-29',
        '0004-02-29',
        '0000-02-29',
        '9999-12-31T23:59:59.9999999Z',
      ]),
    ).toEqual([]);
    expect(
      refused(ValueType.DATE_TIME, [
        '2026-02-29',
        '2026-02-30',
        '1900-02-29',
        '2026-04-31',
        '2026-13-01',
        '2026-00-10',
        '2026-11-00',
        '21.11.2026',
        '2026-11-21T24:00:00Z',
        '2026-11-21T12:60',
        '2026-11-21T12:00:60',
        '2026-11-21T12:00:00+24:00',
        '2026-11-21T12:00:00+01:60',
        '2026-11-21Z',
        '2026-11-21T12',
        '',
      ]),
    ).toEqual([]);
    expect(checkValue(ValueType.DATE_TIME, '2026-02-30', null)).toBe('must be an ISO 8601 date and time');
  });

  it('takes [-][d.]HH:mm:ss[.fffffff] within .NET TimeSpan.MinValue…MaxValue as TimeSpan', () => {
    expect(
      ok(ValueType.TIME_SPAN, ['00:05:00', '1.02:03:04', '-00:00:01.5', '23:59:59.1234567', MAX_SPAN, MIN_SPAN]),
    ).toEqual([]);
    expect(
      refused(ValueType.TIME_SPAN, [
        '10675199.02:48:05.4775808',
        '-10675199.02:48:05.4775809',
        '10675200.00:00:00',
        '99999999.00:00:00',
        '24:00:00',
        '5:00',
        '00:60:00',
        '00:00:60',
        '00:00:00.12345678',
        '1.:00:00:00',
        '',
      ]),
    ).toEqual([]);
    expect(checkValue(ValueType.TIME_SPAN, '24:00:00', null)).toBe(
      'must be a time span [-][d.]HH:mm:ss[.fffffff] within ±10675199.02:48:05.4775807',
    );
  });

  it('takes exactly one of the allowed values as Enum, split on "," or "|" and trimmed', () => {
    expect(enumValues(' Live| Test ,,| Beta ')).toEqual(['Live', 'Test', 'Beta']);
    expect(ok(ValueType.ENUM, ['Live', 'Test', 'Beta'], 'Live| Test ,Beta')).toEqual([]);
    expect(refused(ValueType.ENUM, ['live', ' Live', 'Other', ''], 'Live| Test ,Beta')).toEqual([]);
    expect(checkValue(ValueType.ENUM, 'Other', 'Live|Test')).toBe('must be one of: Live, Test');
    expect(checkValue(ValueType.ENUM, 'Live', ' | , ')).toBe('cannot be set: the entry defines no allowed values');
  });

  it('takes JSON arrays as Array and JSON objects as Json', () => {
    expect(ok(ValueType.ARRAY, ['[]', '[1,"a"]', ' [ {} ] '])).toEqual([]);
    expect(refused(ValueType.ARRAY, ['{}', 'null', '[', '"x"', ''])).toEqual([]);
    expect(ok(ValueType.JSON, ['{}', '{"a":[1]}'])).toEqual([]);
    expect(refused(ValueType.JSON, ['[]', 'null', '{', '1', ''])).toEqual([]);
    expect(checkValue(ValueType.ARRAY, '{}', null)).toBe('must be a JSON array');
    expect(checkValue(ValueType.JSON, '[]', null)).toBe('must be a JSON object');
  });

  it('takes any text as String and Unknown, and null as every type', () => {
    expect(ok(ValueType.STRING, ['', 'anything', '{"not":"checked"}'])).toEqual([]);
    expect(ok(ValueType.UNKNOWN, ['', 'x'])).toEqual([]);
    for (const type of Object.keys(VALUE_TYPE_NAMES)) {
      expect(checkValue(Number(type), null, null)).toBeNull();
    }
    expect(checkValue(9, 'x', null)).toBe('has an unknown value type');
  });

  it('takes at most 256 KiB of text, counted in characters (code points)', () => {
    expect(checkValue(ValueType.STRING, 'x'.repeat(MAX_RAW_VALUE_LENGTH), null)).toBeNull();
    expect(checkValue(ValueType.STRING, '🚀'.repeat(MAX_RAW_VALUE_LENGTH), null)).toBeNull();
    expect(checkValue(ValueType.STRING, 'x'.repeat(MAX_RAW_VALUE_LENGTH + 1), null)).toBe(
      'must be at most 262144 characters long',
    );
    expect(checkValue(ValueType.JSON, `{"a":"${'x'.repeat(MAX_RAW_VALUE_LENGTH)}"}`, null)).toBe(
      'must be at most 262144 characters long',
    );
  });
});

describe('reading and writing typed values', () => {
  it('reads time spans in milliseconds and writes them as .NET does', () => {
    expect(parseTimeSpan('1.02:03:04.5')).toBe(93_784_500);
    expect(parseTimeSpan('00:00:00.0000001')).toBe(0.0001);
    expect(parseTimeSpan('-00:00:00')).toBe(0);
    expect(formatTimeSpan(93_784_500)).toBe('1.02:03:04.5000000');
    expect(formatTimeSpan(-1)).toBe('-00:00:00.0010000');
    expect(formatTimeSpan(-0)).toBe('00:00:00');
  });

  it('writes MaxValue and MinValue back as read, and refuses anything beyond', () => {
    expect(formatTimeSpan(parseTimeSpan(MAX_SPAN) as number)).toBe(MAX_SPAN);
    expect(formatTimeSpan(parseTimeSpan(MIN_SPAN) as number)).toBe(MIN_SPAN);
    expect(() => formatTimeSpan(9.3e14)).toThrow(RangeError);
    expect(() => formatTimeSpan(-9.3e14)).toThrow(RangeError);
    expect(() => formatTimeSpan(Number.NaN)).toThrow(RangeError);
  });

  it('reads date-times as instants (no offset: UTC) and writes them in UTC', () => {
    expect(parseDateTime('2026-11-21 12:30:15,25+0130')).toEqual(new Date('2026-11-21T11:00:15.250Z'));
    expect(parseDateTime('2026-11-21T12:30')).toEqual(new Date('2026-11-21T12:30:00Z'));
    expect(parseDateTime('0050-06-01')?.getUTCFullYear()).toBe(50);
    expect(formatDateTime(new Date('2026-11-21T11:00:15.250Z'))).toBe('2026-11-21T11:00:15.250Z');
    expect(() => formatDateTime(new Date(Date.UTC(10_000, 0, 1)))).toThrow(RangeError);
    expect(() => formatDateTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('value type names', () => {
  it('names the nine codes and reads a name in any case or a code', () => {
    expect(Object.values(VALUE_TYPE_NAMES)).toEqual([
      'Unknown',
      'String',
      'Boolean',
      'DateTime',
      'TimeSpan',
      'Enum',
      'Number',
      'Array',
      'Json',
    ]);
    expect(valueTypeName(42)).toBe('Unknown');
    expect([parseValueType('timespan'), parseValueType('JSON'), parseValueType('4'), parseValueType(6)]).toEqual([
      4, 8, 4, 6,
    ]);
    expect([parseValueType('9'), parseValueType(9), parseValueType(1.5), parseValueType('Time Span')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('the key rule', () => {
  it('takes 1–512 characters of non-empty segments joined by ":"', () => {
    expect(['A', 'A:B:C', 'x'.repeat(512), 'Payments:Timeout Seconds'].map(checkKey)).toEqual([null, null, null, null]);
    expect(checkKey('')).toBe('must be 1 to 512 characters long');
    expect(checkKey('x'.repeat(513))).toBe('must be 1 to 512 characters long');
    for (const key of ['A::B', ':A', 'A:', ' : '])
      expect(checkKey(key)).toBe('must be non-empty segments joined by ":"');
  });

  it('refuses the segments __proto__, constructor and prototype, exactly as written', () => {
    expect(checkKey('__proto__:polluted')).toBe(
      'must not have the segment "__proto__" (__proto__, constructor and prototype are reserved)',
    );
    expect(checkKey('A:constructor')).toMatch(/segment "constructor"/);
    expect(checkKey('constructor:prototype:isAdmin')).toMatch(/segment "constructor"/);
    expect(['A:Constructor', 'A:__proto', 'A:prototypes', 'A: prototype'].map(checkKey)).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });
});
