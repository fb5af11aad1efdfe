import { Code, ConnectError } from '@connectrpc/connect';
import { AppError, errorTable, grpcMetadataOf } from '../../platform/errors.js';

interface Logger {
  error(obj: object, msg: string): void;
}

/**
 * Turns any failure of an RPC into a gRPC status through the one error table. Unexpected errors
 * are logged and answered INTERNAL without their message.
 */
export function toConnectError(error: unknown, logger: Logger): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof AppError && error.code !== 'INTERNAL') {
    return new ConnectError(error.message, errorTable[error.code].grpcCode as Code, grpcMetadataOf(error));
  }
  logger.error({ err: error }, 'gRPC call failed');
  return new ConnectError('An unexpected error occurred. It has been logged.', Code.Internal);
}

/** gRPC status number and message for trailers, from an error code of ours. */
export function grpcStatusOf(
  code: 'NOT_FOUND' | 'UNAVAILABLE' | 'INVALID_ARGUMENT' | 'INTERNAL' | 'UNAUTHENTICATED' | 'PERMISSION_DENIED',
): number {
  return errorTable[code].grpcCode;
}
