/**
 * The one error type of the application. Commands and queries throw it; REST turns it into
 * problem details and gRPC into a status through the table below.
 */

export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  /** A version would grow past a cap (Versions:MaxEntries, Versions:MaxBytes). */
  | 'VERSION_FULL'
  | 'URI_TOO_LONG'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RESOURCE_EXHAUSTED'
  | 'UNAVAILABLE'
  | 'UNIMPLEMENTED'
  | 'INTERNAL';

interface ErrorMapping {
  readonly httpStatus: number;
  /** Numeric gRPC status code (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
  readonly grpcCode: number;
  readonly title: string;
  /** Section of RFC 9110 (or RFC 6585 for 429) that defines the HTTP status. */
  readonly type: string;
}

const rfc9110 = (section: string): string => `https://tools.ietf.org/html/rfc9110#section-${section}`;

export const errorTable: Readonly<Record<ErrorCode, ErrorMapping>> = {
  INVALID_ARGUMENT: { httpStatus: 400, grpcCode: 3, title: 'Bad Request', type: rfc9110('15.5.1') },
  UNAUTHENTICATED: { httpStatus: 401, grpcCode: 16, title: 'Unauthorized', type: rfc9110('15.5.2') },
  PERMISSION_DENIED: { httpStatus: 403, grpcCode: 7, title: 'Forbidden', type: rfc9110('15.5.4') },
  NOT_FOUND: { httpStatus: 404, grpcCode: 5, title: 'Not Found', type: rfc9110('15.5.5') },
  ALREADY_EXISTS: { httpStatus: 409, grpcCode: 6, title: 'Conflict', type: rfc9110('15.5.10') },
  CONFLICT: { httpStatus: 409, grpcCode: 10, title: 'Conflict', type: rfc9110('15.5.10') },
  PAYLOAD_TOO_LARGE: { httpStatus: 413, grpcCode: 8, title: 'Content Too Large', type: rfc9110('15.5.14') },
  // Not 409: clients read a 409 as "changed meanwhile, read again and retry", which never helps here.
  VERSION_FULL: { httpStatus: 400, grpcCode: 8, title: 'Bad Request', type: rfc9110('15.5.1') },
  URI_TOO_LONG: { httpStatus: 414, grpcCode: 3, title: 'URI Too Long', type: rfc9110('15.5.15') },
  UNSUPPORTED_MEDIA_TYPE: {
    httpStatus: 415,
    grpcCode: 3,
    title: 'Unsupported Media Type',
    type: rfc9110('15.5.16'),
  },
  RESOURCE_EXHAUSTED: {
    httpStatus: 429,
    grpcCode: 8,
    title: 'Too Many Requests',
    type: 'https://tools.ietf.org/html/rfc6585#section-4',
  },
  UNAVAILABLE: { httpStatus: 503, grpcCode: 14, title: 'Service Unavailable', type: rfc9110('15.6.4') },
  UNIMPLEMENTED: { httpStatus: 501, grpcCode: 12, title: 'Not Implemented', type: rfc9110('15.6.2') },
  INTERNAL: { httpStatus: 500, grpcCode: 13, title: 'Internal Server Error', type: rfc9110('15.6.1') },
};

/** Field name → messages, as in the `errors` member of a validation problem. */
export type FieldErrors = Record<string, string[]>;

/**
 * One rule a written value breaks: its entry's schema (a JSON Schema keyword) or an outside validator
 * (keyword `validator`). `instancePath` is a JSON Pointer into the value ("" for the whole value);
 * `entryId` is null for an entry the refused write would have created.
 */
export interface Violation {
  readonly key: string | null;
  readonly entryId: string | null;
  readonly instancePath: string;
  readonly keyword: string;
  readonly message: string;
}

/** What an error tells the client beside its code and message; each transport renders it (see below). */
export interface ErrorMetadata {
  /** How long the client should wait before it tries again, in milliseconds. */
  readonly retryAfterMs?: number;
  /** The rules a refused write breaks (at most 100): REST answers them as `violations`. */
  readonly violations?: readonly Violation[];
  /** The running rollout that holds what the refused write would change: REST answers it as `rolloutId`. */
  readonly rolloutId?: string;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly metadata: ErrorMetadata;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fieldErrors?: FieldErrors,
    options?: { cause?: unknown; metadata?: ErrorMetadata },
  ) {
    super(message, options);
    this.metadata = options?.metadata ?? {};
  }

  static invalid(message: string, fieldErrors?: FieldErrors): AppError {
    return new AppError('INVALID_ARGUMENT', message, fieldErrors);
  }

  static notFound(message: string): AppError {
    return new AppError('NOT_FOUND', message);
  }

  static alreadyExists(message: string): AppError {
    return new AppError('ALREADY_EXISTS', message);
  }

  static conflict(message: string): AppError {
    return new AppError('CONFLICT', message);
  }

  static unauthenticated(message = 'Sign-in required.'): AppError {
    return new AppError('UNAUTHENTICATED', message);
  }

  static forbidden(message = 'Insufficient permissions.'): AppError {
    return new AppError('PERMISSION_DENIED', message);
  }
}

/**
 * An error's metadata as gRPC metadata (trailers, or ConnectError metadata): `retry-after-ms`, which
 * the SDK honours. The one place every gRPC transport takes it from.
 */
export function grpcMetadataOf(error: AppError): Readonly<Record<string, string>> {
  const { retryAfterMs } = error.metadata;
  return retryAfterMs === undefined ? {} : { 'retry-after-ms': String(Math.max(0, Math.round(retryAfterMs))) };
}

/** An error's metadata as members of its problem details (REST): `violations`, `rolloutId`. */
export function problemMembersOf(error: AppError): {
  readonly violations?: readonly Violation[];
  readonly rolloutId?: string;
} {
  const { violations, rolloutId } = error.metadata;
  return {
    ...(violations === undefined ? {} : { violations }),
    ...(rolloutId === undefined ? {} : { rolloutId }),
  };
}

/**
 * An error's metadata as HTTP response headers: `Retry-After` in whole seconds (RFC 9110 §10.2.3),
 * rounded up so a client never comes back early. The one place REST takes it from.
 */
export function httpHeadersOf(error: AppError): Readonly<Record<string, string>> {
  const { retryAfterMs } = error.metadata;
  return retryAfterMs === undefined ? {} : { 'retry-after': String(Math.max(0, Math.ceil(retryAfterMs / 1000))) };
}

export function httpStatusToCode(status: number): ErrorCode {
  const found = (Object.keys(errorTable) as ErrorCode[]).find((code) => errorTable[code].httpStatus === status);
  if (found) return found;
  return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
}
