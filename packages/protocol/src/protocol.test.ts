import { ScalarType, create, equals, fromBinary, toBinary, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { getTextEncoding } from '@bufbuild/protobuf/wire';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  CreateVersionRequestSchema,
  CreateVersionRequest_ClassEntrySchema,
  CreateVersionRequest_ClassEntry_ConfigEntrySchema,
  CreateVersionResponseSchema,
  GetConfigRequestSchema,
  GetConfigResponseSchema,
  GetConfigResponse_ConfigEntrySchema,
  IsVersionExistRequestSchema,
  IsVersionExistResponseSchema,
  RealtimeConfigGrpcService,
  SERVICE_PATH,
  SERVICE_TYPE_NAME,
  StartSubscribeRequestSchema,
  SubscriptionEventSchema,
  SubscriptionEvent_ConfigEventSchema,
  ValueType,
  ValueTypeSchema,
  microsFromTimestamp,
  timestampFromMicros,
} from './index.js';

const SERVICE_ID = '0b5e3c4e-6a51-4c1f-9d0e-2f7f1f0d8a11';
const VERSION_ID = 'a6f1c2d3-1111-4222-8333-944455556666';
const US = 1763731200123456; // 2025-11-21T13:20:00.123456Z

/** Minimal protobuf wire reader: the (field number, wire type, payload) of each top-level field. */
type WireField = { field: number; wireType: number; varint?: bigint; bytes?: Uint8Array };
function readFields(buf: Uint8Array): WireField[] {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('truncated varint');
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  const out: WireField[] = [];
  while (pos < buf.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (wireType === 0) out.push({ field, wireType, varint: varint() });
    else if (wireType === 2) {
      const len = Number(varint());
      out.push({ field, wireType, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wireType === 1) pos += 8;
    else if (wireType === 5) pos += 4;
    else throw new Error(`unexpected wire type ${wireType}`);
  }
  return out;
}

const { encodeUtf8, decodeUtf8 } = getTextEncoding();
const utf8 = (b: Uint8Array | undefined): string => decodeUtf8(b ?? new Uint8Array());

describe('field numbers and types (docs/grpc.md, Messages)', () => {
  // [proto name, number, scalar type or message/enum type name, repeated]
  const expected: [DescMessage, [string, number, string, boolean?][]][] = [
    [
      GetConfigRequestSchema,
      [
        ['service_id', 1, 'string'],
        ['version', 2, 'string'],
      ],
    ],
    [GetConfigResponseSchema, [['entries', 1, 'konfigo.client.GetConfigResponse.ConfigEntry', true]]],
    [
      GetConfigResponse_ConfigEntrySchema,
      [
        ['key', 1, 'string'],
        ['value', 2, 'google.protobuf.StringValue'],
        ['generation', 3, 'int32'],
        ['timestamp', 4, 'google.protobuf.Timestamp'],
        ['type', 5, 'konfigo.client.ValueType'],
        ['is_secret', 6, 'bool'],
      ],
    ],
    [
      IsVersionExistRequestSchema,
      [
        ['service_id', 1, 'string'],
        ['version', 2, 'string'],
      ],
    ],
    [IsVersionExistResponseSchema, [['version_id', 1, 'google.protobuf.StringValue']]],
    [
      CreateVersionRequestSchema,
      [
        ['service_id', 1, 'string'],
        ['version', 2, 'string'],
        ['classes', 3, 'konfigo.client.CreateVersionRequest.ClassEntry', true],
      ],
    ],
    [
      CreateVersionRequest_ClassEntrySchema,
      [
        ['name', 1, 'string'],
        ['description', 2, 'google.protobuf.StringValue'],
        ['entries', 3, 'konfigo.client.CreateVersionRequest.ClassEntry.ConfigEntry', true],
      ],
    ],
    [
      CreateVersionRequest_ClassEntry_ConfigEntrySchema,
      [
        ['key', 1, 'string'],
        ['name', 2, 'string'],
        ['description', 3, 'google.protobuf.StringValue'],
        ['value_type', 4, 'konfigo.client.ValueType'],
        ['enum_values', 5, 'google.protobuf.StringValue'],
        ['value', 6, 'google.protobuf.StringValue'],
        ['is_secret', 7, 'bool'],
        ['schema', 8, 'google.protobuf.StringValue'],
      ],
    ],
    [CreateVersionResponseSchema, [['version_id', 1, 'string']]],
    [
      StartSubscribeRequestSchema,
      [
        ['service_id', 1, 'string'],
        ['version_id', 2, 'string'],
        ['timestamp', 3, 'google.protobuf.Timestamp'],
      ],
    ],
    [SubscriptionEventSchema, [['events', 1, 'konfigo.client.SubscriptionEvent.ConfigEvent', true]]],
    [
      SubscriptionEvent_ConfigEventSchema,
      [
        ['key', 1, 'string'],
        ['value', 2, 'google.protobuf.StringValue'],
        ['generation', 3, 'int32'],
        ['timestamp', 4, 'google.protobuf.Timestamp'],
        ['type', 5, 'konfigo.client.ValueType'],
        ['is_secret', 6, 'bool'],
      ],
    ],
  ];

  const fieldType = (f: DescField): string => {
    switch (f.fieldKind) {
      case 'scalar':
        return ScalarType[f.scalar].toLowerCase();
      case 'enum':
        return f.enum.typeName;
      case 'message':
        return f.message.typeName;
      case 'list':
        return f.listKind === 'message' ? f.message.typeName : `list of ${f.listKind}`;
      case 'map':
        return 'map';
    }
  };

  it.each(expected.map(([schema, fields]) => [schema.typeName, schema, fields] as const))(
    '%s',
    (_n, schema, fields) => {
      const actual = schema.fields.map((f) =>
        f.fieldKind === 'list' ? [f.name, f.number, fieldType(f), true] : [f.name, f.number, fieldType(f)],
      );
      expect(actual).toEqual(fields);
    },
  );

  it('all messages live in package konfigo.client', () => {
    for (const [schema] of expected) expect(schema.typeName.startsWith('konfigo.client.')).toBe(true);
  });

  it('ValueType has the nine names with numbers 0 to 8', () => {
    expect(ValueTypeSchema.typeName).toBe('konfigo.client.ValueType');
    expect(ValueTypeSchema.values.map((v) => [v.name, v.number])).toEqual([
      ['VALUE_TYPE_UNKNOWN', 0],
      ['VALUE_TYPE_STRING', 1],
      ['VALUE_TYPE_BOOLEAN', 2],
      ['VALUE_TYPE_DATE_TIME', 3],
      ['VALUE_TYPE_TIME_SPAN', 4],
      ['VALUE_TYPE_ENUM', 5],
      ['VALUE_TYPE_NUMBER', 6],
      ['VALUE_TYPE_ARRAY', 7],
      ['VALUE_TYPE_JSON', 8],
    ]);
    expect([ValueType.UNKNOWN, ValueType.STRING, ValueType.JSON]).toEqual([0, 1, 8]);
  });
});

describe('wire encoding', () => {
  it('GetConfigResponse.ConfigEntry encodes to the known bytes', () => {
    const entry = create(GetConfigResponse_ConfigEntrySchema, {
      key: 'a',
      value: '',
      generation: 3,
      timestamp: { seconds: 1n, nanos: 1000 },
      type: ValueType.JSON,
      isSecret: true,
    });
    // prettier-ignore
    expect(Array.from(toBinary(GetConfigResponse_ConfigEntrySchema, entry))).toEqual([
      0x0a, 0x01, 0x61,                         // 1: key "a"
      0x12, 0x00,                               // 2: value = StringValue{} (present, "")
      0x18, 0x03,                               // 3: generation 3
      0x22, 0x05, 0x08, 0x01, 0x10, 0xe8, 0x07, // 4: timestamp {seconds 1, nanos 1000}
      0x28, 0x08,                               // 5: type VALUE_TYPE_JSON
      0x30, 0x01,                               // 6: is_secret true
    ]);
  });

  it('SubscriptionEvent: events = 1, ConfigEvent fields 1..6 on the wire', () => {
    const msg = create(SubscriptionEventSchema, {
      events: [
        {
          key: 'Db:Timeout',
          value: '30',
          generation: 7,
          timestamp: timestampFromMicros(US),
          type: ValueType.NUMBER,
          isSecret: true,
        },
        { key: 'Gone', generation: 2, timestamp: timestampFromMicros(US + 1) }, // deleted: no value
      ],
    });
    const top = readFields(toBinary(SubscriptionEventSchema, msg));
    expect(top.map((f) => [f.field, f.wireType])).toEqual([
      [1, 2],
      [1, 2],
    ]);
    const first = readFields(top[0]!.bytes!);
    expect(first.map((f) => [f.field, f.wireType])).toEqual([
      [1, 2],
      [2, 2],
      [3, 0],
      [4, 2],
      [5, 0],
      [6, 0],
    ]);
    expect(utf8(first[0]!.bytes)).toBe('Db:Timeout');
    expect(readFields(first[1]!.bytes!)).toEqual([{ field: 1, wireType: 2, bytes: encodeUtf8('30') }]);
    expect(first[2]!.varint).toBe(7n);
    expect(readFields(first[3]!.bytes!).map((f) => [f.field, f.varint])).toEqual([
      [1, 1763731200n],
      [2, 123456000n],
    ]);
    expect(first[4]!.varint).toBe(6n);
    expect(first[5]!.varint).toBe(1n);
    // A deleted key has no field 2 at all (null StringValue); type 0 and is_secret false are not emitted.
    expect(readFields(top[1]!.bytes!).map((f) => f.field)).toEqual([1, 3, 4]);
  });

  it('CreateVersionRequest nesting: classes = 3, ClassEntry.entries = 3, ConfigEntry 1..6', () => {
    const msg = create(CreateVersionRequestSchema, {
      serviceId: SERVICE_ID,
      version: '1.2.3',
      classes: [
        {
          name: 'DbOptions',
          description: 'Database',
          entries: [
            {
              key: 'Db:Mode',
              name: 'Mode',
              description: 'd',
              valueType: ValueType.ENUM,
              enumValues: 'A|B',
              value: 'A',
            },
          ],
        },
      ],
    });
    const top = readFields(toBinary(CreateVersionRequestSchema, msg));
    expect(top.map((f) => f.field)).toEqual([1, 2, 3]);
    expect(utf8(top[0]!.bytes)).toBe(SERVICE_ID);
    const cls = readFields(top[2]!.bytes!);
    expect(cls.map((f) => f.field)).toEqual([1, 2, 3]);
    const entry = readFields(cls[2]!.bytes!);
    expect(entry.map((f) => [f.field, f.wireType])).toEqual([
      [1, 2],
      [2, 2],
      [3, 2],
      [4, 0],
      [5, 2],
      [6, 2],
    ]);
    expect(entry[3]!.varint).toBe(5n);
    expect(utf8(readFields(entry[4]!.bytes!)[0]!.bytes)).toBe('A|B');
  });

  it('StartSubscribeRequest and IsVersionExistResponse field numbers', () => {
    const req = readFields(
      toBinary(
        StartSubscribeRequestSchema,
        create(StartSubscribeRequestSchema, {
          serviceId: SERVICE_ID,
          versionId: VERSION_ID,
          timestamp: timestampFromMicros(US),
        }),
      ),
    );
    expect(req.map((f) => [f.field, f.wireType])).toEqual([
      [1, 2],
      [2, 2],
      [3, 2],
    ]);
    const res = readFields(
      toBinary(IsVersionExistResponseSchema, create(IsVersionExistResponseSchema, { versionId: VERSION_ID })),
    );
    expect(res.map((f) => f.field)).toEqual([1]);
    expect(utf8(readFields(res[0]!.bytes!)[0]!.bytes)).toBe(VERSION_ID);
  });
});

describe('binary round trips', () => {
  const ts = timestampFromMicros(US);
  const cases: [string, DescMessage, Record<string, unknown>][] = [
    ['GetConfigRequest', GetConfigRequestSchema, { serviceId: SERVICE_ID, version: '1.0.0' }],
    [
      'GetConfigResponse',
      GetConfigResponseSchema,
      {
        entries: [
          { key: 'A:B', value: 'x', generation: 1, timestamp: ts, type: ValueType.STRING },
          { key: 'A:C', generation: 2, timestamp: ts, type: ValueType.BOOLEAN },
          { key: 'A:D', value: '', generation: 3, timestamp: ts, type: ValueType.JSON },
        ],
      },
    ],
    ['IsVersionExistRequest', IsVersionExistRequestSchema, { serviceId: SERVICE_ID, version: '1.0.0' }],
    ['IsVersionExistResponse (found)', IsVersionExistResponseSchema, { versionId: VERSION_ID }],
    ['IsVersionExistResponse (not found)', IsVersionExistResponseSchema, {}],
    [
      'CreateVersionRequest',
      CreateVersionRequestSchema,
      {
        serviceId: SERVICE_ID,
        version: '2.0.0',
        classes: [
          {
            name: 'Options',
            description: 'Some options',
            entries: [
              {
                key: 'Options:Level',
                name: 'Level',
                description: 'Level of detail',
                valueType: ValueType.ENUM,
                enumValues: 'Low|High',
                value: 'Low',
              },
              { key: 'Options:Empty', name: 'Empty', valueType: ValueType.STRING, value: '' },
              { key: 'Options:Span', name: 'Span', valueType: ValueType.TIME_SPAN },
            ],
          },
          { name: 'NoDescription' },
        ],
      },
    ],
    ['CreateVersionResponse', CreateVersionResponseSchema, { versionId: VERSION_ID }],
    [
      'StartSubscribeRequest',
      StartSubscribeRequestSchema,
      { serviceId: SERVICE_ID, versionId: VERSION_ID, timestamp: ts },
    ],
    [
      'SubscriptionEvent',
      SubscriptionEventSchema,
      {
        events: [
          { key: 'K1', value: 'v', generation: 4, timestamp: ts, type: ValueType.ARRAY },
          { key: 'K2', generation: 5, timestamp: timestampFromMicros(US + 1), type: ValueType.NUMBER },
        ],
      },
    ],
  ];

  it.each(cases)('%s', (_name, schema, init) => {
    const msg = create(schema, init);
    const back = fromBinary(schema, toBinary(schema, msg));
    expect(equals(schema, msg, back)).toBe(true);
    expect(back).toEqual(msg);
  });

  it('null and empty string in StringValue fields stay distinct', () => {
    const entries = fromBinary(
      GetConfigResponseSchema,
      toBinary(
        GetConfigResponseSchema,
        create(GetConfigResponseSchema, {
          entries: [
            { key: 'null', value: undefined },
            { key: 'empty', value: '' },
            { key: 'text', value: 'x' },
          ],
        }),
      ),
    ).entries;
    expect(entries.map((e) => e.value)).toEqual([undefined, '', 'x']);

    const event = fromBinary(
      SubscriptionEvent_ConfigEventSchema,
      toBinary(SubscriptionEvent_ConfigEventSchema, create(SubscriptionEvent_ConfigEventSchema, { key: 'k' })),
    );
    expect(event.value).toBeUndefined();

    const cfg = fromBinary(
      CreateVersionRequest_ClassEntry_ConfigEntrySchema,
      toBinary(
        CreateVersionRequest_ClassEntry_ConfigEntrySchema,
        create(CreateVersionRequest_ClassEntry_ConfigEntrySchema, {
          description: '',
          enumValues: undefined,
          value: '',
        }),
      ),
    );
    expect([cfg.description, cfg.enumValues, cfg.value]).toEqual(['', undefined, '']);

    expect(fromBinary(IsVersionExistResponseSchema, new Uint8Array()).versionId).toBeUndefined();
    expect(
      fromBinary(IsVersionExistResponseSchema, new Uint8Array([0x0a, 0x00])).versionId, // present, empty
    ).toBe('');
  });
});

describe('timestamp helpers', () => {
  it('are exact for microsecond values and produce integer nanos', () => {
    const ts = timestampFromMicros(US);
    expect(ts.$typeName).toBe('google.protobuf.Timestamp');
    expect(ts.seconds).toBe(1763731200n);
    expect(ts.nanos).toBe(123456000);
    expect(Number.isInteger(ts.nanos)).toBe(true);
    expect(microsFromTimestamp(ts)).toBe(US);
    expect(microsFromTimestamp(fromBinary(TimestampSchema, toBinary(TimestampSchema, ts)))).toBe(US);
    expect(timestampFromMicros(BigInt(US))).toEqual(ts);
  });

  it('handle zero, whole seconds and times before 1970', () => {
    expect(timestampFromMicros(0)).toMatchObject({ seconds: 0n, nanos: 0 });
    expect(timestampFromMicros(2_000_000)).toMatchObject({ seconds: 2n, nanos: 0 });
    expect(timestampFromMicros(-1)).toMatchObject({ seconds: -1n, nanos: 999_999_000 });
    expect(microsFromTimestamp(timestampFromMicros(-1))).toBe(-1);
    expect(timestampFromMicros(-1_500_000)).toMatchObject({ seconds: -2n, nanos: 500_000_000 });
  });

  it('round-trip every safe integer exactly, with integer nanos that encode', () => {
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (us) => {
        const ts = timestampFromMicros(us);
        expect(Number.isInteger(ts.nanos) && ts.nanos >= 0 && ts.nanos < 1e9 && ts.nanos % 1000 === 0).toBe(true);
        expect(microsFromTimestamp(fromBinary(TimestampSchema, toBinary(TimestampSchema, ts)))).toBe(us);
      }),
      { numRuns: 2000 },
    );
  });

  it('agree with Date for millisecond values', () => {
    const ms = Date.UTC(2025, 10, 21, 13, 20, 0, 123);
    const ts = timestampFromMicros(ms * 1000);
    expect(new Date(Number(ts.seconds) * 1000 + ts.nanos / 1e6).toISOString()).toBe('2025-11-21T13:20:00.123Z');
  });

  it('reject what cannot be represented exactly', () => {
    expect(() => timestampFromMicros(1.5)).toThrow(RangeError);
    expect(() => timestampFromMicros(Number.NaN)).toThrow(RangeError);
    expect(() => timestampFromMicros(Number.MAX_SAFE_INTEGER + 1)).toThrow(RangeError);
    expect(() => microsFromTimestamp(create(TimestampSchema, { seconds: 1n, nanos: 1.5 }))).toThrow(RangeError);
    expect(() => microsFromTimestamp(create(TimestampSchema, { seconds: 1n, nanos: 1_000_000_000 }))).toThrow(
      RangeError,
    );
    expect(() => microsFromTimestamp(create(TimestampSchema, { seconds: 253402300799n }))).toThrow(RangeError);
  });

  it('floor sub-microsecond nanos from foreign clients', () => {
    expect(microsFromTimestamp(create(TimestampSchema, { seconds: 1n, nanos: 1999 }))).toBe(1_000_001);
    expect(microsFromTimestamp(create(TimestampSchema, { seconds: -1n, nanos: 999_999_999 }))).toBe(-1);
  });
});

describe('service descriptor', () => {
  it('is konfigo.client.RealtimeConfigGrpcService with the four methods', () => {
    expect(RealtimeConfigGrpcService.typeName).toBe('konfigo.client.RealtimeConfigGrpcService');
    expect(SERVICE_TYPE_NAME).toBe(RealtimeConfigGrpcService.typeName);
    expect(SERVICE_PATH).toBe(`/${RealtimeConfigGrpcService.typeName}`);
    expect(
      RealtimeConfigGrpcService.methods.map((m) => [m.name, m.methodKind, m.input.typeName, m.output.typeName]),
    ).toEqual([
      ['GetConfig', 'unary', 'konfigo.client.GetConfigRequest', 'konfigo.client.GetConfigResponse'],
      ['IsVersionExists', 'unary', 'konfigo.client.IsVersionExistRequest', 'konfigo.client.IsVersionExistResponse'],
      ['CreateVersion', 'unary', 'konfigo.client.CreateVersionRequest', 'konfigo.client.CreateVersionResponse'],
      [
        'StartSubscribe',
        'server_streaming',
        'konfigo.client.StartSubscribeRequest',
        'konfigo.client.SubscriptionEvent',
      ],
    ]);
    expect(RealtimeConfigGrpcService.method.startSubscribe.methodKind).toBe('server_streaming');
    expect(RealtimeConfigGrpcService.method.startSubscribe.output).toBe(SubscriptionEventSchema);
  });
});
