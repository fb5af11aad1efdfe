import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueType } from '../gen/konfigo/client/service_pb.js';
import {
  checkKey,
  checkValue,
  enumValues,
  formatDateTime,
  formatNumber,
  formatTimeSpan,
  formatTimeSpanTicks,
  MAX_TIME_SPAN_TICKS,
  MIN_TIME_SPAN_TICKS,
  parseBoolean,
  parseDateTime,
  parseNumber,
  parseTimeSpan,
  parseValueType,
  timeSpanTicks,
  VALUE_TYPE_NAMES,
} from '../index.js';
import {
  instants,
  instantsBeyond,
  samplesOf,
  spanMilliseconds,
  spanMillisecondsBeyond,
} from '../test-support/value-arbitraries.js';

const TYPES = Object.keys(VALUE_TYPE_NAMES).map(Number) as ValueType[];
const fits = (type: ValueType, text: string, enumDefinition: string | null = null) =>
  checkValue(type, text, enumDefinition) === null;

describe('the value rules agree with themselves', () => {
  it.each(TYPES.map((type) => [VALUE_TYPE_NAMES[type], type] as const))(
    '%s: accepts exactly the valid samples, near misses included',
    (_name, type) => {
      fc.assert(
        fc.property(samplesOf[type], (s) => {
          expect(fits(type, s.text, s.enumDefinition), JSON.stringify(s)).toBe(s.valid);
        }),
        { numRuns: 500 },
      );
    },
  );

  it('TimeSpan: every tick count MinValue…MaxValue is written as text read back to the same ticks', () => {
    const ticks = fc.oneof(
      fc.bigInt({ min: MIN_TIME_SPAN_TICKS, max: MAX_TIME_SPAN_TICKS }),
      fc.bigInt({ min: -100n, max: 100n }),
      fc.bigInt({ min: 0n, max: 1000n }).map((d) => MAX_TIME_SPAN_TICKS - d),
      fc.bigInt({ min: 0n, max: 1000n }).map((d) => MIN_TIME_SPAN_TICKS + d),
    );
    fc.assert(
      fc.property(ticks, (t) => {
        const text = formatTimeSpanTicks(t);
        expect(fits(ValueType.TIME_SPAN, text)).toBe(true);
        expect(timeSpanTicks(text)).toBe(t);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 1n << 80n }), fc.boolean(), (d, negative) => {
        const beyond = negative ? MIN_TIME_SPAN_TICKS - d : MAX_TIME_SPAN_TICKS + d;
        expect(() => formatTimeSpanTicks(beyond)).toThrow(RangeError);
      }),
    );
  });

  it('TimeSpan: milliseconds within range are written as valid text that reads back to the nearest tick', () => {
    fc.assert(
      fc.property(spanMilliseconds, (ms) => {
        const text = formatTimeSpan(ms);
        expect(fits(ValueType.TIME_SPAN, text)).toBe(true);
        const back = parseTimeSpan(text) as number;
        // Half a tick of rounding, plus what a double loses at this size.
        expect(Math.abs(back - ms)).toBeLessThanOrEqual(0.00005 + Math.abs(ms) * Number.EPSILON * 2);
        expect(formatTimeSpan(back)).toBe(text);
      }),
    );
    fc.assert(
      fc.property(spanMillisecondsBeyond, (ms) => {
        expect(() => formatTimeSpan(ms)).toThrow(RangeError);
      }),
    );
  });

  it('TimeSpan: a valid text read and written again is the text .NET writes for the same ticks', () => {
    fc.assert(
      fc.property(
        samplesOf[ValueType.TIME_SPAN].filter((s) => s.valid),
        (s) => {
          const ticks = timeSpanTicks(s.text) as bigint;
          const canonical = formatTimeSpanTicks(ticks);
          const viaMs = formatTimeSpan(parseTimeSpan(s.text) as number);
          expect(fits(ValueType.TIME_SPAN, viaMs)).toBe(true);
          // Milliseconds are exact to the tick while the ticks fit a double's integers (±28 years).
          if (ticks < 2n ** 53n && ticks > -(2n ** 53n)) expect(viaMs).toBe(canonical);
        },
      ),
    );
  });

  it('DateTime: every instant of the years 0000–9999 is written as valid text read back to the same instant', () => {
    fc.assert(
      fc.property(instants, (date) => {
        const text = formatDateTime(date);
        expect(fits(ValueType.DATE_TIME, text)).toBe(true);
        expect(parseDateTime(text)?.getTime()).toBe(date.getTime());
      }),
    );
    fc.assert(
      fc.property(instantsBeyond, (date) => {
        expect(() => formatDateTime(date)).toThrow(RangeError);
      }),
    );
  });

  it('DateTime: a valid text reads as the instant its parts name (JavaScript reads the same parts alike)', () => {
    fc.assert(
      fc.property(
        samplesOf[ValueType.DATE_TIME].filter((s) => s.valid),
        (s) => {
          const m = /^(.{10})(?:[T ](\d\d:\d\d)(:\d\d)?(?:[.,](\d+))?(Z|[+-]\d\d(?::?\d\d)?)?)?$/.exec(s.text);
          if (!m) throw new Error(`unexpected sample ${s.text}`);
          const [, day, hm = '00:00', sec = ':00', fraction = '', zone = 'Z'] = m;
          const offset = zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '') || '00'}`;
          const expected = new Date(`${day}T${hm}${sec}.${fraction.padEnd(3, '0').slice(0, 3)}${offset}`);
          expect(parseDateTime(s.text)?.getTime()).toBe(expected.getTime());
        },
      ),
    );
  });

  it('Number: every finite double is written as valid text read back to the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = formatNumber(n);
        expect(fits(ValueType.NUMBER, text)).toBe(true);
        expect(parseNumber(text)).toBe(n === 0 ? 0 : n);
      }),
    );
    for (const n of [Infinity, -Infinity, Number.NaN]) expect(() => formatNumber(n)).toThrow(RangeError);
  });

  it('Boolean and Number: the reader accepts exactly what the check accepts', () => {
    fc.assert(
      fc.property(samplesOf[ValueType.BOOLEAN], (s) => {
        expect(parseBoolean(s.text) !== undefined).toBe(s.valid);
        if (s.valid) expect(parseBoolean(s.text)).toBe(s.text.toLowerCase() === 'true');
        expect(fits(ValueType.BOOLEAN, String(parseBoolean(s.text) ?? true))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(samplesOf[ValueType.NUMBER], (s) => {
        expect(parseNumber(s.text) !== undefined).toBe(s.valid);
      }),
    );
  });

  it('Enum: the allowed values are read back as written, whatever separators joined them', () => {
    fc.assert(
      fc.property(samplesOf[ValueType.ENUM], (s) => {
        const allowed = enumValues(s.enumDefinition);
        expect(enumValues(allowed.join('|'))).toEqual(allowed);
        expect(enumValues(allowed.join(', '))).toEqual(allowed);
        for (const value of allowed) expect(fits(ValueType.ENUM, value, s.enumDefinition)).toBe(true);
      }),
    );
  });

  it('value type names: every name, in any case, reads back as its code', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), fc.boolean(), (type, upper) => {
        const name = VALUE_TYPE_NAMES[type];
        expect(parseValueType(upper ? name.toUpperCase() : name.toLowerCase())).toBe(type);
        expect(parseValueType(String(type))).toBe(type);
      }),
    );
  });

  it('keys: non-empty segments joined by ":" are accepted up to 512 characters, unless a segment is reserved', () => {
    const segment = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'ab _-.'), minLength: 1, maxLength: 200 }),
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'Constructor', '__proto'),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.nat(), fc.boolean(), (segments, at, gap) => {
        if (gap) segments.splice(at % (segments.length + 1), 0, ' ');
        const key = segments.join(':');
        const reserved = segments.some((x) => ['__proto__', 'constructor', 'prototype'].includes(x));
        const blank = segments.some((x) => x.trim() === '');
        expect(checkKey(key) === null).toBe(key.length <= 512 && !blank && !reserved);
      }),
    );
  });
});
