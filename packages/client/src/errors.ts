/**
 * What went wrong, as a stable string you can switch on:
 *
 * - `INVALID_ARGUMENT`: a schema or an option is not valid (thrown by the builders, rejected by
 *   `connect`), or the server refused a request as malformed.
 * - `INVALID_VALUE`: a remote value does not parse as its declared type (or fails its Standard
 *   Schema); the last good value is kept. Reported through `on('error')`, never thrown.
 * - `UNAVAILABLE`: the server could not be reached, or the stream dropped.
 * - `UNAUTHENTICATED`: the server wants credentials (`apiKey` or `token`), or refused them.
 * - `PERMISSION_DENIED`: the credentials do not allow this service.
 * - `NOT_FOUND`: the service does not exist, or the version was deleted.
 * - `CACHE`: the cache file could not be read or written.
 * - `ABORTED`: the `signal` given to `connect` was aborted before it resolved.
 * - `INTERNAL`: anything else (a server error, a bug).
 * @example
 * ```ts
 * config.on('error', (error) => {
 *   if (error.code === 'INVALID_VALUE') metrics.increment('config.invalid_value', { key: error.key });
 * });
 * ```
 */
export type ConfigErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_VALUE'
  | 'UNAVAILABLE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'CACHE'
  | 'ABORTED'
  | 'INTERNAL';

/**
 * Options of {@link ConfigError}.
 * @example
 * ```ts
 * new ConfigError('INVALID_VALUE', 'Payments:Mode: "Beta" is not one of Live, Test', { key: 'Payments:Mode' });
 * ```
 */
export interface ConfigErrorOptions {
  /** The configuration key the error is about (`Group:Name`), when there is one. */
  readonly key?: string | undefined;
  /** The underlying error (a `ConnectError`, a file-system error, a Standard Schema failure …). */
  readonly cause?: unknown;
  /** How long the server asked the client to wait before trying again, in milliseconds. */
  readonly retryAfterMs?: number | undefined;
}

/**
 * The one error type of the SDK: every rejection of `connect`, every error thrown by a schema
 * builder and every error passed to `config.on('error', …)` is a `ConfigError` with a {@link code}.
 *
 * @example
 * ```ts
 * try {
 *   await connect({ url, serviceId, version: '1.0.0', schema });
 * } catch (error) {
 *   if (error instanceof ConfigError && error.code === 'UNAVAILABLE') console.error('no server, no cache');
 *   throw error;
 * }
 * ```
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** What went wrong; see {@link ConfigErrorCode}. */
  readonly code: ConfigErrorCode;
  /** The key (`Group:Name`) the error is about, when it is about one. */
  readonly key: string | undefined;
  /**
   * How long the server asked to wait before trying again (its `retry-after-ms`, sent when it is at
   * its stream limit), in milliseconds; the SDK's reconnects wait at least this long.
   */
  readonly retryAfterMs: number | undefined;

  constructor(code: ConfigErrorCode, message: string, options: ConfigErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.key = options.key;
    this.retryAfterMs = options.retryAfterMs;
  }
}
