import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkValue, enumValues, ValueType } from '../../protocol/src/index.js';
import {
  instants,
  instantsBeyond,
  MAX_SPAN_MS,
  junk,
  samplesOf,
  spanMilliseconds,
  spanMillisecondsBeyond,
  type Sample,
} from '../../protocol/src/test-support/value-arbitraries.js';
import {
  array,
  boolean,
  connect,
  dateTime,
  defineConfig,
  enumOf,
  group,
  json,
  number,
  string,
  timeSpan,
  type ConfigError,
  type LiveConfig,
  type Setting,
} from './index.js';
import { databaseKinds, entriesByKey, startFixture, until, type Fixture } from './test-support/fixtures.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type AnySetting = Setting<unknown>;

/** Near misses sent to every type, besides the generated samples. */
const EDGES = [
  'True',
  ' true',
  '0x10',
  '1e999',
  '.5',
  '2024-02-29',
  '2026-02-29',
  '0000-02-29T00:00Z',
  '2026-01-01T00:00+23:59',
  '2026-01-01T00:00+24:00',
  '10675199.02:48:05.4775807',
  '10675199.02:48:05.4775808',
  '-10675199.02:48:05.4775808',
  '-10675199.02:48:05.4775809',
  'a b',
  '[',
  '[]',
  '{}',
  '',
];

/** The builder of each value type (an Enum's from the sample's allowed values). */
function settingOf(type: ValueType, enumDefinition: string | null): AnySetting {
  const builders: Partial<Record<ValueType, () => unknown>> = {
    [ValueType.STRING]: () => string(),
    [ValueType.BOOLEAN]: () => boolean(),
    [ValueType.DATE_TIME]: () => dateTime(),
    [ValueType.TIME_SPAN]: () => timeSpan(),
    [ValueType.ENUM]: () => enumOf(enumValues(enumDefinition) as [string, ...string[]]),
    [ValueType.NUMBER]: () => number(),
    [ValueType.ARRAY]: () => array(),
    [ValueType.JSON]: () => json(),
  };
  return builders[type]!() as AnySetting;
}

const TYPES = [
  ValueType.STRING,
  ValueType.BOOLEAN,
  ValueType.DATE_TIME,
  ValueType.TIME_SPAN,
  ValueType.ENUM,
  ValueType.NUMBER,
  ValueType.ARRAY,
  ValueType.JSON,
] as const;

const reads = (setting: AnySetting, text: string): boolean => {
  try {
    setting.parse(text);
    return true;
  } catch (error) {
    expect((error as ConfigError).code).toBe('INVALID_VALUE');
    return false;
  }
};
const stored = (type: ValueType, text: string, enumDefinition: string | null = null) =>
  checkValue(type, text, enumDefinition) === null;

describe('the SDK reads and writes values by the server’s rules', () => {
  it.each(TYPES.map((type) => [ValueType[type], type] as const))(
    '%s: a raw value is read exactly when the server stores it',
    (_name, type) => {
      const samples = fc.oneof(
        samplesOf[type],
        junk.map((text): Sample => ({ text, enumDefinition: 'Live|Test', valid: false })),
      );
      fc.assert(
        fc.property(samples, (s) => {
          const definition = type === ValueType.ENUM ? s.enumDefinition : null;
          expect(reads(settingOf(type, definition), s.text), JSON.stringify(s)).toBe(stored(type, s.text, definition));
        }),
        { numRuns: 300 },
      );
    },
  );

  it('writes every value it can hold as text the server stores, and reads it back as the same value', () => {
    const roundTrips =
      <T>(setting: Setting<T>, type: ValueType, same: (a: T, b: T) => void) =>
      (value: T) => {
        const text = setting.format(value as Exclude<T, null>);
        expect(stored(type, text), text).toBe(true);
        same(setting.parse(text), value);
      };
    fc.assert(
      fc.property(
        fc.string(),
        roundTrips(string(), ValueType.STRING, (a, b) => expect(a).toBe(b)),
      ),
    );
    fc.assert(
      fc.property(
        fc.boolean(),
        roundTrips(boolean(), ValueType.BOOLEAN, (a, b) => expect(a).toBe(b)),
      ),
    );
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        roundTrips(number(), ValueType.NUMBER, (a, b) => expect(a === b).toBe(true)),
      ),
    );
    fc.assert(
      fc.property(
        instants,
        roundTrips(dateTime(), ValueType.DATE_TIME, (a, b) => expect(a?.getTime()).toBe(b?.getTime())),
      ),
    );
    fc.assert(
      fc.property(
        spanMilliseconds,
        roundTrips(timeSpan(), ValueType.TIME_SPAN, (a, b) =>
          expect(Math.abs((a ?? 0) - (b ?? 0))).toBeLessThanOrEqual(0.00005 + Math.abs(b ?? 0) * Number.EPSILON * 2),
        ),
      ),
    );
    const asJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue()),
        roundTrips(array(), ValueType.ARRAY, (a, b) => expect(a).toEqual(asJson(b))),
      ),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        roundTrips(json(), ValueType.JSON, (a, b) => expect(a).toEqual(asJson(b))),
      ),
    );
  });

  it('refuses to write what the server would refuse: beyond TimeSpan’s range, the years 0000–9999, 256 KiB', () => {
    const refuses = (setting: AnySetting) => (value: unknown) => {
      expect(() => setting.format(value)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    };
    fc.assert(fc.property(spanMillisecondsBeyond, refuses(timeSpan())));
    fc.assert(fc.property(instantsBeyond, refuses(dateTime())));
    for (const n of [Infinity, -Infinity, Number.NaN]) refuses(number())(n);
    refuses(string())('x'.repeat(256 * 1024 + 1));
    refuses(array())(['x'.repeat(256 * 1024)]);
    expect(timeSpan().format(MAX_SPAN_MS)).toBe('10675199.02:48:05.4775807');
    expect(timeSpan().format(-MAX_SPAN_MS)).toBe('-10675199.02:48:05.4775808');
  });
});

describe.each(databaseKinds)('the SDK and the real server agree on values, on %s', (kind) => {
  let fx: Fixture;
  let config: LiveConfig<never> | undefined;
  beforeAll(async () => {
    fx = await startFixture(kind);
  });
  afterAll(async () => {
    await config?.close();
    await fx?.close();
  });

  it('registers defaults written by the SDK, and stores exactly the raw values the SDK reads', async () => {
    const defaults = {
      Span: fc.sample(fc.oneof(spanMilliseconds, fc.constantFrom(MAX_SPAN_MS, -MAX_SPAN_MS)), 12),
      When: fc.sample(
        fc.oneof(instants, fc.constantFrom(new Date('0000-01-01Z'), new Date('9999-12-31T23:59:59.999Z'))),
        12,
      ),
      Count: fc.sample(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(5e-324, -0)), 12),
    };
    const fields: Record<string, AnySetting> = {
      Text: string() as AnySetting,
      Flag: boolean() as AnySetting,
      Mode: enumOf(['Live', 'Test', 'a b']) as AnySetting,
      List: array() as AnySetting,
      Object: json() as AnySetting,
      Span: timeSpan() as AnySetting,
      When: dateTime() as AnySetting,
      Count: number() as AnySetting,
    };
    defaults.Span.forEach((ms, i) => (fields[`Span${i}`] = timeSpan({ default: ms }) as AnySetting));
    defaults.When.forEach((date, i) => (fields[`When${i}`] = dateTime({ default: date }) as AnySetting));
    defaults.Count.forEach((n, i) => (fields[`Count${i}`] = number({ default: n }) as AnySetting));
    const serviceId = await fx.service();
    const errors: ConfigError[] = [];
    config = (await connect({
      url: fx.url,
      serviceId,
      version: '1',
      schema: defineConfig({ V: group(fields as never) }),
    })) as LiveConfig<never>;
    config.on('error', (error) => errors.push(error));
    const values = () => (config!.values as Record<string, Record<string, unknown>>).V!;
    // Registration is all or nothing: every default the SDK wrote was stored, and reads back the same.
    defaults.When.forEach((date, i) => expect((values()[`When${i}`] as Date).getTime()).toBe(date.getTime()));
    defaults.Count.forEach((n, i) => expect(values()[`Count${i}`] === n).toBe(true));
    defaults.Span.forEach((ms, i) => expect(Math.abs((values()[`Span${i}`] as number) - ms)).toBeLessThan(0.0001));

    const entries = await entriesByKey(fx.admin, serviceId, config.versionId);
    const disagreements: string[] = [];
    const last: Record<string, string> = {};
    const enumDefinition = 'Live|Test|a b';
    for (const [name, type] of [
      ['Text', ValueType.STRING],
      ['Flag', ValueType.BOOLEAN],
      ['Mode', ValueType.ENUM],
      ['List', ValueType.ARRAY],
      ['Object', ValueType.JSON],
      ['Span', ValueType.TIME_SPAN],
      ['When', ValueType.DATE_TIME],
      ['Count', ValueType.NUMBER],
    ] as const) {
      const entry = entries[`V:${name}`]!;
      let generation = entry.generation;
      const texts = [
        ...EDGES,
        ...fc.sample(
          type === ValueType.ENUM
            ? fc.constantFrom('Live', 'Test', 'a b', 'live', ' Live', 'Other', '')
            : fc
                .oneof(
                  samplesOf[type].map((s) => s.text),
                  junk,
                )
                // Texts REST refuses whatever their type (U+0000, lone surrogates) cannot reach the SDK.
                .filter((t) => !t.includes('\u0000') && !LONE_SURROGATE.test(t)),
          15,
        ),
      ];
      for (const text of texts) {
        const res = await fx.admin.put(`/api/configentries/${serviceId}/${config.versionId}/set`, [
          { id: entry.id, rawValue: text, generation },
        ]);
        const sdkReads = reads(fields[name]!, text);
        if ((res.status === 200) !== sdkReads)
          disagreements.push(`${name} ${JSON.stringify(text)}: server ${res.status}`);
        expect(checkValue(type, text, type === ValueType.ENUM ? enumDefinition : null) === null).toBe(sdkReads);
        if (res.status === 200) {
          generation += 1;
          last[name] = text;
        }
      }
    }
    expect(disagreements).toEqual([]);
    // Every stored value reached the SDK and was read, none reported as invalid.
    await until(
      () =>
        Object.entries(last).every(([name, text]) => {
          const expected = fields[name]!.parse(text);
          return JSON.stringify(values()[name]) === JSON.stringify(expected);
        }),
      'the last stored values',
    );
    expect(errors).toEqual([]);
  });
});
