import type { StartSubscribeRequest, Timestamp } from '../../protocol.js';
import { AppError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';

export interface ParsedSubscribeRequest {
  readonly serviceId: string;
  readonly versionId: string;
  /** Changes strictly after this timestamp (µs); 0 when the request has none. */
  readonly afterTimestamp: number;
}

/** Checks a StartSubscribe request; INVALID_ARGUMENT for malformed ids or timestamps. */
export function parseSubscribeRequest(request: StartSubscribeRequest): ParsedSubscribeRequest {
  requireUuid('service_id', request.serviceId);
  requireUuid('version_id', request.versionId);
  return {
    serviceId: request.serviceId.toLowerCase(),
    versionId: request.versionId.toLowerCase(),
    afterTimestamp: request.timestamp ? afterMicrosOf(request.timestamp) : 0,
  };
}

/** google.protobuf.Timestamp's valid range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;
const MICROS_PER_SECOND = 1_000_000n;

/**
 * "Changes after" a timestamp, in µs since the epoch. Every valid Timestamp is accepted (docs/grpc.md):
 * anything before 1970 (Konfigo's SDKs send 0001-01-01) means every change; anything past the
 * largest exact microsecond (year 2255) means none yet. Only an invalid Timestamp is refused.
 */
function afterMicrosOf(timestamp: Timestamp): number {
  const { seconds, nanos } = timestamp;
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw AppError.invalid('timestamp is not a valid google.protobuf.Timestamp (0001-01-01 to 9999-12-31).', {
      timestamp: ['is out of range'],
    });
  }
  const micros = seconds * MICROS_PER_SECOND + BigInt(Math.floor(nanos / 1000));
  if (micros <= 0n) return 0;
  return micros > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(micros);
}

export function requireUuid(field: string, value: string): void {
  if (!isUuid(value))
    throw AppError.invalid(`${field} must be a UUID (got "${value.slice(0, 64)}").`, { [field]: ['must be a UUID'] });
}

/** A version label to look up: text without U+0000, which no stored label can contain. */
export function requireLabel(label: string): void {
  if (label.includes('\u0000') || label.length > 200) {
    throw AppError.invalid('version must be at most 200 characters without U+0000.', {
      version: ['is not a valid label'],
    });
  }
}
