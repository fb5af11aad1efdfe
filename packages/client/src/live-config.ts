import type { ConfigError } from './errors.js';
import type { ConfigChange, ConfigSchema, ConfigValues } from './schema.js';

/**
 * Where the values come from:
 * - `live`: the change stream is open; changes arrive as they are committed.
 * - `reconnecting`: the stream dropped; the client tries again every `pollingInterval` and
 *   catches up from the last change it saw.
 * - `offline`: started from the cache file because the server could not be reached; it catches
 *   up as soon as the server answers.
 * - `closed`: `close()` was called (or the `signal` aborted); values no longer change.
 * @example
 * ```ts
 * app.get('/healthz/config', (req, res) => res.status(config.status === 'closed' ? 503 : 200).send(config.status));
 * ```
 */
export type ConfigStatus = 'live' | 'reconnecting' | 'offline' | 'closed';

/**
 * Called after each applied change with the new values and what changed (typed values, `Group:Name` keys).
 * @example
 * ```ts
 * const log: ChangeListener<typeof schema> = (values, changes) => console.log(changes.map((c) => c.key));
 * config.subscribe(log);
 * ```
 */
export type ChangeListener<S extends ConfigSchema> = (
  values: ConfigValues<S>,
  changes: ReadonlyArray<ConfigChange<S>>,
) => void;

/**
 * Where the client reports what it does. `console` fits, and so do pino, winston and bunyan
 * loggers; every message is one string.
 * @example
 * ```ts
 * import pino from 'pino';
 * const config = await connect({ url, serviceId, version, schema, logger: pino() });
 * ```
 */
export interface ConfigLogger {
  /** Problems the application keeps running through: an unparsable value, a lost stream, a missing key. */
  warn(message: string): void;
  /** A listener threw. @default console.error */
  error?(message: string): void;
  /** The stream went live, a version was registered. */
  info?(message: string): void;
  /** Reconnect attempts. */
  debug?(message: string): void;
}

/**
 * The configuration of a running application, kept current by the change stream. Returned by
 * {@link connect}; {@link staticConfig} gives the same interface for tests.
 *
 * @example
 * ```ts
 * const config = await connect({ url, serviceId, version: '1.4.2', schema });
 * const off = config.subscribe((values, changes) => {
 *   for (const change of changes) console.log(change.key, change.oldValue, '→', change.newValue);
 * });
 * config.on('status', (status) => console.log('config is', status));
 * config.on('error', (error) => console.warn(error.code, error.message));
 * // …
 * off();
 * await config.close();
 * ```
 */
export interface LiveConfig<S extends ConfigSchema> {
  /**
   * The current values, typed from the schema: a deeply frozen object replaced as a whole on each
   * change, so a reference holds one consistent generation of it.
   */
  readonly values: ConfigValues<S>;
  /** See {@link ConfigStatus}. */
  readonly status: ConfigStatus;
  /** The id (UUID) of the version the values belong to; `''` for a {@link staticConfig}. */
  readonly versionId: string;
  /**
   * Calls `listener` once per applied change event (a batch of values set together is one call)
   * with the new values and the changed keys. Returns the function that removes it.
   */
  subscribe(listener: ChangeListener<S>): () => void;
  /** Calls `listener` with the new status on each status change. Returns the function that removes it. */
  on(event: 'status', listener: (status: ConfigStatus) => void): () => void;
  /**
   * Calls `listener` with each problem the client keeps running through: a remote value that
   * does not parse (`INVALID_VALUE`; the last good value is kept), a lost stream (`UNAVAILABLE`),
   * a cache file that cannot be written (`CACHE`) … Returns the function that removes it.
   */
  on(event: 'error', listener: (error: ConfigError) => void): () => void;
  /** Ends the change stream on the server and the connection; idempotent. Values stay readable. */
  close(): Promise<void>;
  /** `await using config = await connect(…)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void>;
}
