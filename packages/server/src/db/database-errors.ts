import { FOLLOWER_READ_ONLY, UniqueViolation } from '../core/index.js';
import { AppError } from '../platform/errors.js';

/** Socket errors of a database connection that a later attempt may not meet. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** SQLSTATEs of a server that is going away, coming up, or full (PostgreSQL appendix A). */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** What node-postgres says when a connection ends under it or cannot be had in time. */
const CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Connection ended',
];

/**
 * True when the error says the database cannot be reached right now (restart, failover, a killed
 * connection, the server not up yet): the request may succeed when retried, so it is answered
 * 503 / UNAVAILABLE rather than 500 / INTERNAL. Looks through `cause` chains.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (
      typeof code === 'string' &&
      (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08'))
    ) {
      return true;
    }
    if (typeof message === 'string' && CLIENT_MESSAGES.some((m) => message.startsWith(m))) return true;
    e = cause;
  }
  return false;
}

export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is not available right now; retry shortly.';

/** read_only_sql_transaction: what a hot standby answers every write (and every row lock). */
const READ_ONLY_TRANSACTION = '25006';

/**
 * The error a request should fail with: UNAVAILABLE for a database that cannot be reached or that
 * is a read-only standby (a follower's), and core's UniqueViolation for a broken unique index.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof AppError || error instanceof UniqueViolation) return error;
  if (isUniqueViolation(error)) return new UniqueViolation('A unique index refused the write.', { cause: error });
  if ((error as { code?: unknown } | null)?.code === READ_ONLY_TRANSACTION) {
    return new AppError('UNAVAILABLE', FOLLOWER_READ_ONLY, undefined, { cause: error });
  }
  if (!isDatabaseUnavailable(error)) return error;
  return new AppError('UNAVAILABLE', DATABASE_UNAVAILABLE_MESSAGE, undefined, { cause: error });
}

/** True when the error is a unique-constraint violation in either database. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
