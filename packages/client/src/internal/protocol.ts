/**
 * The one door to the protocol package: the generated code and the value-type rules shared with the
 * server and the console. It is imported from the protocol package's sources by path, not by package
 * name, so `tsc` compiles it into this package's own output and the published tarball carries it
 * (docs/adr/0008-sdk-carries-the-protocol.md).
 */
export {
  checkKey,
  describeViolations,
  exceedsLength,
  formatDateTime,
  formatNumber,
  formatTimeSpan,
  GetConfigResponse_ConfigEntrySchema,
  isJsonObject,
  isReservedKeySegment,
  MAX_RAW_VALUE_LENGTH,
  microsFromTimestamp,
  parseBoolean,
  parseDateTime,
  parseNumber,
  parseTimeSpan,
  RealtimeConfigGrpcService,
  schemaProblem,
  schemaViolations,
  timestampFromMicros,
  VALUE_TYPE_CODES,
  valueTypeName,
  ValueType,
  type CreateVersionRequestSchema,
  type GetConfigResponse,
  type SubscriptionEvent,
  type ValueTypeName as AnyValueTypeName,
} from '../../../protocol/src/index.js';
