import { microsFromTimestamp, type StartSubscribeRequest } from '@realtime-config/protocol';
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
  let afterTimestamp = 0;
  if (request.timestamp) {
    try {
      afterTimestamp = microsFromTimestamp(request.timestamp);
    } catch {
      throw AppError.invalid('timestamp is not a valid timestamp.', { timestamp: ['is out of range'] });
    }
  }
  return {
    serviceId: request.serviceId.toLowerCase(),
    versionId: request.versionId.toLowerCase(),
    afterTimestamp: Math.max(0, afterTimestamp),
  };
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
