import { checkValue, enumValues, ValueType } from '@realtime-config/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { junk, samplesOf } from '../../../../../protocol/src/test-support/value-arbitraries';
import { booleanOf, describeDateTime, describeTimeSpan, formatJson, rawOrNull } from './value-format';

const fits = (type: ValueType, text: string | null, enumDefinition: string | null = null) =>
  checkValue(type, text, enumDefinition) === null;
const textsOf = (type: ValueType) =>
  fc.oneof(
    samplesOf[type].map((s) => s.text),
    junk,
  );

describe('the editors read and write values by the server’s rules', () => {
  it('the Boolean switch reads exactly the texts the server stores, and writes only those', () => {
    fc.assert(
      fc.property(textsOf(ValueType.BOOLEAN), (text) => {
        expect(booleanOf(text) !== null).toBe(fits(ValueType.BOOLEAN, text));
      }),
    );
    for (const checked of [true, false]) expect(fits(ValueType.BOOLEAN, String(checked))).toBe(true);
  });

  it('a TimeSpan is described in words exactly when the server stores it', () => {
    fc.assert(
      fc.property(textsOf(ValueType.TIME_SPAN), (text) => {
        expect(describeTimeSpan(text) !== null).toBe(fits(ValueType.TIME_SPAN, text));
      }),
    );
    expect(describeTimeSpan('10675199.02:48:05.4775807')).toBe('10675199 d 2 h 48 min 5.4775807 s');
    expect(describeTimeSpan('10675199.02:48:05.4775808')).toBeNull();
    expect(describeTimeSpan('-00:00:00')).toBe('0 s');
  });

  it('a DateTime is shown in local time exactly when the server stores it', () => {
    fc.assert(
      fc.property(textsOf(ValueType.DATE_TIME), (text) => {
        expect(describeDateTime(text) !== null).toBe(fits(ValueType.DATE_TIME, text));
      }),
    );
    expect(describeDateTime('2026-11-21T12:00:00,5+01:00')).toContain('your time');
    expect(describeDateTime('2026-11-21T12:00')).toContain('no time zone given: read as UTC');
    expect(describeDateTime('2026-02-30')).toBeNull();
  });

  it('the code editor’s layout of a stored Array or Json value is stored too, with the same meaning', () => {
    for (const type of [ValueType.ARRAY, ValueType.JSON]) {
      fc.assert(
        fc.property(textsOf(type), (text) => {
          const shown = formatJson(text);
          expect(fits(type, shown)).toBe(fits(type, text));
          if (fits(type, text)) expect(JSON.parse(shown)).toEqual(JSON.parse(text));
        }),
      );
    }
  });

  it('an emptied field is null, which every type stores; every allowed Enum value is stored', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\s*$/),
        fc.constantFrom(...Object.values(ValueType).filter(Number.isInteger)),
        (blank, type) => {
          expect(rawOrNull(blank)).toBeNull();
          expect(fits(type as ValueType, rawOrNull(blank), 'A|B')).toBe(true);
        },
      ),
    );
    fc.assert(
      fc.property(samplesOf[ValueType.ENUM], (s) => {
        for (const value of enumValues(s.enumDefinition))
          expect(fits(ValueType.ENUM, value, s.enumDefinition)).toBe(true);
      }),
    );
  });
});
