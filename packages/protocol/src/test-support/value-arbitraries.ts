/**
 * fast-check generators of raw values for the agreement tests of the value rules (protocol, SDK,
 * console). Each sample carries whether the server must accept it, worked out here from the
 * components it was built of (an oracle written apart from the rules), and the generators aim at the
 * edges: TimeSpan a few ticks either side of MaxValue and MinValue, February 29/30, 1e308/1e309,
 * offsets of 23:59 and 24:00.
 */
import fc from 'fast-check';
import { ValueType } from '../gen/konfigo/client/service_pb.js';

export interface Sample {
  readonly text: string;
  readonly enumDefinition: string | null;
  /** Whether the server stores this text as a value of the type. */
  readonly valid: boolean;
}

const MAX_TICKS = 9_223_372_036_854_775_807n;
/** TimeSpan.MaxValue in milliseconds, as near as a double gets. */
export const MAX_SPAN_MS = 922_337_203_685_477.6;

const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const sample = (text: string, valid: boolean, enumDefinition: string | null = null): Sample => ({
  text,
  valid,
  enumDefinition,
});
const mixedCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''));

const timeSpans: fc.Arbitrary<Sample> = fc
  .record({
    negative: fc.boolean(),
    days: fc.option(
      fc.oneof(fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 10_675_190, max: 10_675_210 })),
      {
        nil: undefined,
      },
    ),
    hours: fc.integer({ min: 0, max: 25 }),
    oneDigitHour: fc.boolean(),
    minutes: fc.integer({ min: 0, max: 61 }),
    seconds: fc.integer({ min: 0, max: 61 }),
    fraction: fc.option(digits(1, 8), { nil: undefined }),
  })
  .map((s) => {
    const hours = s.oneDigitHour ? String(s.hours) : pad(s.hours);
    const fraction = s.fraction === undefined ? '' : `.${s.fraction}`;
    const text = `${s.negative ? '-' : ''}${s.days === undefined ? '' : `${s.days}.`}${hours}:${pad(s.minutes)}:${pad(s.seconds)}${fraction}`;
    const seconds = ((BigInt(s.days ?? 0) * 24n + BigInt(s.hours)) * 60n + BigInt(s.minutes)) * 60n + BigInt(s.seconds);
    const ticks = seconds * 10_000_000n + BigInt((s.fraction ?? '').padEnd(7, '0').slice(0, 7));
    const fits =
      hours.length === 2 && s.hours < 24 && s.minutes < 60 && s.seconds < 60 && (s.fraction ?? '').length <= 7;
    return sample(text, fits && ticks <= MAX_TICKS + (s.negative ? 1n : 0n));
  });

/** A few ticks either side of MaxValue (10675199.02:48:05.4775807) and MinValue (one tick further). */
const timeSpanEdges: fc.Arbitrary<Sample> = fc
  .record({ negative: fc.boolean(), lastTicks: fc.integer({ min: 4_775_790, max: 4_775_830 }) })
  .map(({ negative, lastTicks }) =>
    sample(`${negative ? '-' : ''}10675199.02:48:05.${lastTicks}`, lastTicks <= 4_775_807 + (negative ? 1 : 0)),
  );

/** Days in a month by the Gregorian calendar, which repeats every 400 years. */
const daysIn = (year: number, month: number) => new Date(Date.UTC(2000 + (year % 400), month, 0)).getUTCDate();

const dateTimes: fc.Arbitrary<Sample> = fc
  .record({
    year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 4, 100, 1900, 2000, 2024, 2026)),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.oneof(fc.integer({ min: 0, max: 32 }), fc.constantFrom(28, 29, 30, 31)),
    time: fc.option(
      fc.record({
        separator: fc.constantFrom('T', ' '),
        hour: fc.integer({ min: 0, max: 25 }),
        minute: fc.integer({ min: 0, max: 61 }),
        second: fc.option(fc.integer({ min: 0, max: 61 }), { nil: undefined }),
        fraction: fc.option(fc.record({ mark: fc.constantFrom('.', ','), digits: digits(1, 10) }), { nil: undefined }),
      }),
      { nil: undefined },
    ),
    zone: fc.option(
      fc.oneof(
        fc.constant({ text: 'Z', fits: true }),
        fc
          .record({
            sign: fc.constantFrom('+', '-'),
            hours: fc.integer({ min: 0, max: 25 }),
            minutes: fc.option(fc.integer({ min: 0, max: 61 }), { nil: undefined }),
            colon: fc.boolean(),
          })
          .map((z) => ({
            text: `${z.sign}${pad(z.hours)}${z.minutes === undefined ? '' : `${z.colon ? ':' : ''}${pad(z.minutes)}`}`,
            fits: z.hours < 24 && (z.minutes ?? 0) < 60,
          })),
      ),
      { nil: undefined },
    ),
  })
  .map(({ year, month, day, time, zone }) => {
    let text = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    let fits = month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
    if (time) {
      text += `${time.separator}${pad(time.hour)}:${pad(time.minute)}`;
      fits &&= time.hour < 24 && time.minute < 60;
      if (time.second !== undefined) {
        text += `:${pad(time.second)}`;
        fits &&= time.second < 60;
        if (time.fraction) {
          text += `${time.fraction.mark}${time.fraction.digits}`;
          fits &&= time.fraction.digits.length <= 9;
        }
      }
    }
    if (zone) {
      text += zone.text;
      fits &&= zone.fits && time !== undefined;
    }
    return sample(text, fits);
  });

const numbers: fc.Arbitrary<Sample> = fc.oneof(
  fc
    .record({
      sign: fc.constantFrom('', '+', '-'),
      whole: fc.oneof(digits(0, 4), digits(300, 320)),
      fraction: fc.option(digits(0, 4), { nil: undefined }),
      exponent: fc.option(
        fc.record({
          e: fc.constantFrom('e', 'E'),
          sign: fc.constantFrom('', '+', '-'),
          digits: fc.oneof(digits(0, 2), fc.integer({ min: 300, max: 330 }).map(String)),
        }),
        { nil: undefined },
      ),
    })
    .map(({ sign, whole, fraction, exponent }) => {
      const text = `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent ? `${exponent.e}${exponent.sign}${exponent.digits}` : ''}`;
      const wellFormed =
        (whole !== '' || (fraction ?? '') !== '') && (exponent === undefined || exponent.digits !== '');
      return sample(text, wellFormed && Number.isFinite(Number(text)));
    }),
  fc.double({ noNaN: true }).map((n) => sample(String(n), Number.isFinite(n))),
  fc
    .constantFrom('0x10', '0b1', 'Infinity', '-Infinity', 'NaN', ' 1', '1 ', '1_000', '1,5', '')
    .map((t) => sample(t, false)),
);

const booleans: fc.Arbitrary<Sample> = fc.oneof(
  fc
    .constantFrom('true', 'false')
    .chain(mixedCase)
    .map((t) => sample(t, true)),
  fc
    .tuple(fc.constantFrom('true', 'false').chain(mixedCase), fc.constantFrom(' ', 'e', '1', '\n'), fc.boolean())
    .map(([word, extra, before]) => sample(before ? extra + word : word + extra, false)),
  fc.constantFrom('yes', 'no', '1', '0', '', 't', 'True.').map((t) => sample(t, false)),
);

const enumToken = fc
  .string({ unit: fc.constantFrom(...'abAB xy_-.'), minLength: 1, maxLength: 6 })
  .filter((t) => t.trim() === t && t !== '');
const enums: fc.Arbitrary<Sample> = fc
  .record({
    allowed: fc.uniqueArray(enumToken, { minLength: 1, maxLength: 5 }),
    separators: fc.array(fc.constantFrom(',', '|', ' | ', ', ', '||'), { minLength: 5, maxLength: 5 }),
    pick: fc.nat(),
    other: enumToken,
    how: fc.constantFrom('allowed', 'spaced', 'upper', 'other'),
  })
  .map(({ allowed, separators, pick, other, how }) => {
    const definition = allowed.map((v, i) => (i === 0 ? v : `${separators[i % separators.length]}${v}`)).join('');
    const chosen = allowed[pick % allowed.length] ?? '';
    const text = { allowed: chosen, spaced: ` ${chosen}`, upper: chosen.toUpperCase(), other }[how];
    return sample(text, allowed.includes(text), definition);
  });

const json = (shape: 'array' | 'object'): fc.Arbitrary<Sample> =>
  fc.oneof(
    fc.tuple(fc.jsonValue(), fc.constantFrom(0, 2)).map(([value, indent]) => {
      const fits =
        shape === 'array' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value);
      return sample(JSON.stringify(value, null, indent), fits);
    }),
    fc
      .oneof(fc.array(fc.jsonValue(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }))
      .map((value) => sample(JSON.stringify(value).slice(0, -1), false)),
  );

const anyText = fc.string({ unit: 'binary', maxLength: 40 }).map((t) => sample(t, true));

/** Samples of raw values for each value type, valid ones and near misses. */
export const samplesOf: Readonly<Record<ValueType, fc.Arbitrary<Sample>>> = {
  [ValueType.UNKNOWN]: anyText,
  [ValueType.STRING]: anyText,
  [ValueType.BOOLEAN]: booleans,
  [ValueType.DATE_TIME]: dateTimes,
  [ValueType.TIME_SPAN]: fc.oneof(timeSpans, timeSpanEdges),
  [ValueType.ENUM]: enums,
  [ValueType.NUMBER]: numbers,
  [ValueType.ARRAY]: json('array'),
  [ValueType.JSON]: json('object'),
};

/** Any short text (no oracle): for properties that compare two readers of the same rule. */
export const junk = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom(...'0123456789:.-+eETZ ,[]{}"tfrueals'), maxLength: 30 }),
);

/** Milliseconds a TimeSpan holds (MinValue…MaxValue), with the edges and fractions of a tick. */
export const spanMilliseconds = fc.oneof(
  fc.double({ min: -MAX_SPAN_MS, max: MAX_SPAN_MS, noNaN: true }),
  fc.integer({ min: -10 * 86_400_000, max: 10 * 86_400_000 }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((ticks) => ticks / 10_000),
  fc.constantFrom(MAX_SPAN_MS, -MAX_SPAN_MS, 0, -0, 0.0001, 0.00005, 0.99995),
);

/** Milliseconds beyond what a TimeSpan holds, from the next double above {@link MAX_SPAN_MS} on. */
export const spanMillisecondsBeyond = fc
  .tuple(fc.double({ min: 922_337_203_685_477.8, max: 1e300, noNaN: true }), fc.boolean())
  .map(([ms, negative]) => (negative ? -ms : ms));

/** Instants a DateTime text holds: the years 0000–9999 (UTC). */
export const instants = fc.date({
  min: new Date('0000-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});

/** Instants outside the years 0000–9999 (UTC). */
export const instantsBeyond = fc.oneof(
  fc.date({ max: new Date('-000001-12-31T23:59:59.999Z'), noInvalidDate: true }),
  fc.date({ min: new Date('+010000-01-01T00:00:00.000Z'), noInvalidDate: true }),
);
