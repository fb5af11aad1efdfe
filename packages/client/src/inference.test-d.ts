import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
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
  staticConfig,
  string,
  timeSpan,
  type ConfigChange,
  type ConfigKey,
  type ConfigStatus,
  type ConfigValues,
  type JsonSchema,
  type LiveConfig,
} from './index.js';
import { paymentsSchema, type PaymentsSchema } from './test-support/payments-schema.js';

type Values = ConfigValues<PaymentsSchema>;

describe('type inference from the schema', () => {
  it('gives each builder its value type, with null exactly when there is no default', () => {
    expectTypeOf<Values['Payments']['Provider']>().toEqualTypeOf<string>();
    expectTypeOf<Values['Payments']['TimeoutSeconds']>().toEqualTypeOf<number>();
    expectTypeOf<Values['Payments']['Enabled']>().toEqualTypeOf<boolean>();
    expectTypeOf<Values['Payments']['Window']>().toEqualTypeOf<number>();
    expectTypeOf<Values['Payments']['StartsAt']>().toEqualTypeOf<Date | null>();
    expectTypeOf<Values['Payments']['Retries']>().toEqualTypeOf<number[]>();
    expectTypeOf<Values['Payments']['Limits']>().toEqualTypeOf<{ max: number }>();

    const schema = defineConfig({
      G: group({
        S: string(),
        B: boolean(),
        N: number({ description: 'no default' }),
        T: timeSpan(),
        A: array<string>(),
        J: json<{ on: boolean }>(),
        E: enumOf(['a', 'b']),
        D: dateTime({ default: new Date(0) }),
        SD: string({ default: undefined }),
      }),
    });
    expectTypeOf(schema.kind).toEqualTypeOf<'config'>();
    type G = ConfigValues<typeof schema>['G'];
    expectTypeOf<G['S']>().toEqualTypeOf<string | null>();
    expectTypeOf<G['B']>().toEqualTypeOf<boolean | null>();
    expectTypeOf<G['N']>().toEqualTypeOf<number | null>();
    expectTypeOf<G['T']>().toEqualTypeOf<number | null>();
    expectTypeOf<G['A']>().toEqualTypeOf<string[] | null>();
    expectTypeOf<G['J']>().toEqualTypeOf<{ on: boolean } | null>();
    expectTypeOf<G['E']>().toEqualTypeOf<'a' | 'b' | null>();
    expectTypeOf<G['D']>().toEqualTypeOf<Date>();
    expectTypeOf<G['SD']>().toEqualTypeOf<string | null>();
  });

  it('makes enums a union of their literals and checks the default against them', () => {
    expectTypeOf<Values['Payments']['Mode']>().toEqualTypeOf<'Live' | 'Test'>();
    const withoutAsConst = enumOf(['Red', 'Green'], { default: 'Red' });
    expectTypeOf(withoutAsConst.default).toEqualTypeOf<'Red' | 'Green'>();
    // @ts-expect-error 'Blue' is not one of the values
    enumOf(['Red', 'Green'], { default: 'Blue' });
    // @ts-expect-error an enum needs at least one value
    enumOf([]);
  });

  it('nests groups in values and in change keys', () => {
    expectTypeOf<Values['Payments']['Retry']>().toEqualTypeOf<{ readonly Attempts: number }>();
    expectTypeOf<ConfigKey<PaymentsSchema>>().toEqualTypeOf<
      | 'Payments:Provider'
      | 'Payments:TimeoutSeconds'
      | 'Payments:Mode'
      | 'Payments:Enabled'
      | 'Payments:Window'
      | 'Payments:StartsAt'
      | 'Payments:Retries'
      | 'Payments:Limits'
      | 'Payments:Retry:Attempts'
      | 'Features:Checks'
      | 'Features:Hosts'
    >();
    const change = {} as ConfigChange<PaymentsSchema>;
    if (change.key === 'Payments:Mode') expectTypeOf(change.newValue).toEqualTypeOf<'Live' | 'Test'>();
    if (change.key === 'Payments:Retry:Attempts') expectTypeOf(change.oldValue).toEqualTypeOf<number>();
  });

  it('takes the type of array and json values from a Standard Schema (zod, valibot)', () => {
    expectTypeOf<Values['Features']['Checks']>().toEqualTypeOf<{ level: number }>();
    expectTypeOf<Values['Features']['Hosts']>().toEqualTypeOf<string[] | null>();
    const schema = defineConfig({
      V: group({
        Tags: array(v.string(), { default: ['a'] }),
        Point: json(v.object({ x: v.number(), y: v.number() })),
        Port: json(z.object({ port: z.number() }), { default: { port: 80 } }),
      }),
    });
    expectTypeOf(schema.groups.V.description).toEqualTypeOf<string | undefined>();
    type V = ConfigValues<typeof schema>['V'];
    expectTypeOf<V['Tags']>().toEqualTypeOf<string[]>();
    expectTypeOf<V['Point']>().toEqualTypeOf<{ x: number; y: number } | null>();
    expectTypeOf<V['Port']>().toEqualTypeOf<{ port: number }>();
    // @ts-expect-error the default must fit the schema
    json(z.object({ port: z.number() }), { default: { port: '80' } });
  });

  it('takes rules beside the default without changing the value type; rules are typed', () => {
    const schema = defineConfig({
      R: group({
        Timeout: number({ default: 30, min: 1, max: 300, integer: true }),
        Url: string({ default: 'https://x', pattern: '^https://', format: 'uri', minLength: 1 }),
        Name: string({ maxLength: 10 }),
        Hosts: array<string>({ default: ['a'], minItems: 1, items: { format: 'hostname' } }),
        Tags: array(v.string(), { default: ['a'], maxItems: 3 }),
        Limits: json<{ max: number }>({ default: { max: 1 }, schema: { required: ['max'] } }),
      }),
    });
    type R = ConfigValues<typeof schema>['R'];
    expectTypeOf<R['Timeout']>().toEqualTypeOf<number>();
    expectTypeOf<R['Url']>().toEqualTypeOf<string>();
    expectTypeOf<R['Name']>().toEqualTypeOf<string | null>();
    expectTypeOf<R['Hosts']>().toEqualTypeOf<string[]>();
    expectTypeOf<R['Tags']>().toEqualTypeOf<string[]>();
    expectTypeOf<R['Limits']>().toEqualTypeOf<{ max: number }>();
    expectTypeOf(schema.groups.R.fields.Timeout.schema).toEqualTypeOf<JsonSchema | undefined>();
    // @ts-expect-error min is a number
    number({ min: '1' });
    // @ts-expect-error the formats are uri, email, hostname, uuid and date-time
    string({ format: 'phone' });
    // @ts-expect-error number rules are not string rules
    string({ max: 3 });
    // @ts-expect-error a JSON Schema is an object
    json({ schema: 'required' });
  });

  it('types defaults, groups and the client surface', () => {
    // @ts-expect-error a number setting takes a number default
    number({ default: '30' });
    // @ts-expect-error a time span default is text or milliseconds
    timeSpan({ default: true });
    // @ts-expect-error the top level holds groups only
    defineConfig({ Loose: string() });

    expectTypeOf(connect({ url: '', serviceId: '', version: '', schema: paymentsSchema })).resolves.toEqualTypeOf<
      LiveConfig<PaymentsSchema>
    >();
    const config = staticConfig(paymentsSchema, { Payments: { TimeoutSeconds: 99, Retry: { Attempts: 1 } } });
    expectTypeOf(config.values).toEqualTypeOf<Values>();
    expectTypeOf(config.status).toEqualTypeOf<ConfigStatus>();
    config.subscribe((values, changes) => {
      expectTypeOf(values).toEqualTypeOf<Values>();
      expectTypeOf(changes).toEqualTypeOf<ReadonlyArray<ConfigChange<PaymentsSchema>>>();
    });
    // @ts-expect-error overrides are typed
    staticConfig(paymentsSchema, { Payments: { TimeoutSeconds: 'slow' } });
    // @ts-expect-error values are read-only
    config.values.Payments.Provider = 'x';
  });
});
