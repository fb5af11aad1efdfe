/**
 * @realtime-config/protocol: the gRPC protocol shared by the server, the SDK and the console.
 *
 * Everything generated from proto/konfigo/client/service.proto (service descriptor,
 * message schemas and types, ValueType) is re-exported as named exports, plus a few
 * helpers every side needs and the value-type and key rules (src/values, docs/value-types.md).
 * The SDK compiles these sources into its own package, so they import nothing Node-only.
 */
import { create } from '@bufbuild/protobuf';
import { TimestampSchema, type Timestamp } from '@bufbuild/protobuf/wkt';

export * from './gen/konfigo/client/service_pb.js';
export {
  KonfigoGetConfigResponseSchema,
  type KonfigoGetConfigResponse,
  RealtimeConfigGrpcService as KonfigoLayoutService,
} from './gen/konfigo/layout/konfigo_layout_pb.js';
export type { Timestamp } from '@bufbuild/protobuf/wkt';

/** Fully-qualified protobuf name of the service. */
export const SERVICE_TYPE_NAME = 'konfigo.client.RealtimeConfigGrpcService';

/**
 * Canonical gRPC service path; a method path is `${SERVICE_PATH}/<Method>`,
 * e.g. `/konfigo.client.RealtimeConfigGrpcService/StartSubscribe`.
 */
export const SERVICE_PATH = '/konfigo.client.RealtimeConfigGrpcService';

/** Service path of GetConfig in the layout of the existing Konfigo SDKs (server side only). */
export const KONFIGO_LAYOUT_SERVICE_PATH = '/konfigo.layout.RealtimeConfigGrpcService';

/**
 * The `x-rc-sdk` the web console sends on its own change stream. The server leaves such streams out
 * of a version's instances (and their count and metric): a console tab is a person looking, not an
 * instance of the application.
 */
export const CONSOLE_SDK = 'realtime-config-console';

const MICROS_PER_SECOND = 1_000_000n;

/**
 * Timestamp for a number of microseconds since the Unix epoch (the server's change-time unit).
 * Exact for every safe integer; nanos is always an integer multiple of 1000 in 0..999_999_000
 * (fractional nanos would break the binary encoder). Negative values (before 1970) are
 * normalized as protobuf requires (negative seconds, non-negative nanos).
 *
 * @throws RangeError when `us` is not a safe integer.
 */
export function timestampFromMicros(us: number | bigint): Timestamp {
  if (typeof us === 'number' && !Number.isSafeInteger(us)) {
    throw new RangeError(`timestampFromMicros: expected an integer number of microseconds, got ${us}`);
  }
  const total = BigInt(us);
  let seconds = total / MICROS_PER_SECOND;
  let micros = total % MICROS_PER_SECOND;
  if (micros < 0n) {
    seconds -= 1n;
    micros += MICROS_PER_SECOND;
  }
  return create(TimestampSchema, { seconds, nanos: Number(micros) * 1000 });
}

/**
 * Microseconds since the Unix epoch of a Timestamp. Sub-microsecond nanos are truncated
 * (floored), so "changes after ts" keeps its meaning for timestamps sent by foreign clients.
 *
 * @throws RangeError when nanos is not an integer in 0..999_999_999, or when the result is
 * not a safe integer (beyond roughly the years 1685–2255).
 */
export function microsFromTimestamp(ts: Timestamp): number {
  const { seconds, nanos } = ts;
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw new RangeError(`microsFromTimestamp: invalid nanos ${nanos}`);
  }
  const total = seconds * MICROS_PER_SECOND + BigInt(Math.floor(nanos / 1000));
  if (total > BigInt(Number.MAX_SAFE_INTEGER) || total < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`microsFromTimestamp: ${total} microseconds is not a safe integer`);
  }
  return Number(total);
}

// The value-type rules (names, parse, check, format) and the key rule, shared by the server, the SDK,
// the CLI (through the SDK) and the console.
export * from './values/date-time.js';
export * from './values/key-rule.js';
export * from './values/scalar-values.js';
export * from './values/time-span.js';
export * from './values/value-rules.js';
export * from './values/value-types.js';

// The JSON Schema an entry's value must meet: one check for the server, the console and the SDK.
export * from './schema/value-schema.js';
