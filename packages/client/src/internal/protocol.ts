/**
 * The one door to the generated protocol code. It is imported from the protocol package's sources
 * by path, not by package name, so `tsc` compiles it into this package's own output and the
 * published tarball carries it (docs/adr/0008-sdk-carries-the-protocol.md).
 */
export {
  GetConfigResponse_ConfigEntrySchema,
  microsFromTimestamp,
  RealtimeConfigGrpcService,
  timestampFromMicros,
  ValueType,
  type CreateVersionRequestSchema,
  type GetConfigResponse,
  type SubscriptionEvent,
} from '../../../protocol/src/index.js';
