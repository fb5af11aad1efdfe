import type { SecureClientSessionOptions } from 'node:http2';
import type { ConfigError } from './errors.js';
import type { ConfigLogger } from './live-config.js';
import type { ConfigSchema } from './schema.js';

// The options of the public functions, apart from them: the internals that check them import these
// types without importing the functions that use the internals.

/**
 * Options of {@link connect}; only the first four are required.
 * @example
 * ```ts
 * const options: ConnectOptions<typeof schema> = {
 *   url: 'https://config.internal:8080',
 *   serviceId: process.env.RC_SERVICE_ID ?? '',
 *   version: '1.0.0',
 *   schema,
 *   apiKey: process.env.RC_API_KEY,
 *   cacheFile: '/var/cache/my-app/config.json',
 * };
 * ```
 */
export interface ConnectOptions<S extends ConfigSchema> {
  /** The server (gRPC and REST share its port): `http://host:8080` (h2c) or `https://…` (TLS). */
  readonly url: string;
  /** The id (UUID) of the application's service, as shown in the management UI. */
  readonly serviceId: string;
  /** The version label to register and follow, e.g. the application's own version (`'1.4.2'`). */
  readonly version: string;
  /** The declared configuration, from {@link defineConfig}. */
  readonly schema: S;
  /**
   * Milliseconds to wait before each reconnect after the stream drops (and between attempts while
   * starting): this ± a random 20 % for the first three attempts in a row, then a random time up
   * to min(30 s, pollingInterval × 2^attempt), so a fleet does not reconnect in lock-step after a
   * server restart. A server at its stream limit names its own wait (`retry-after-ms`); that wins.
   * @default 5000
   */
  readonly pollingInterval?: number;
  /**
   * Milliseconds `connect` keeps trying to reach the server; then it resolves from `cacheFile`
   * (status `offline`) or rejects.
   * @default 10000
   */
  readonly startupTimeout?: number;
  /**
   * An API key of the service (from `POST /api/services/{id}/apikeys`), sent as
   * `authorization: Bearer <key>`. Needed when the server sets `Grpc:RequireAuthentication`.
   * @default undefined (no credentials)
   */
  readonly apiKey?: string;
  /**
   * A bearer token (Jwt provider), or a function returning one; the function is asked again when
   * the server answers UNAUTHENTICATED. Give `apiKey` or `token`, not both.
   * @default undefined (no credentials)
   */
  readonly token?: string | (() => string | Promise<string>);
  /**
   * A file that keeps the last snapshot, rewritten atomically after each applied change. When the
   * server cannot be reached within `startupTimeout`, `connect` resolves from it.
   * @default undefined (no cache: connect rejects when the server cannot be reached)
   */
  readonly cacheFile?: string;
  /**
   * 32 random bytes in base64 (`openssl rand -base64 32`) that encrypt the values of `secret: true`
   * settings in `cacheFile` (AES-256-GCM). Without it those values are left out of the cache file
   * (one warning), and a client starting offline reads their declared defaults.
   * @default undefined (secrets are not cached)
   */
  readonly cacheKey?: string;
  /** Aborting it rejects a pending `connect` and closes the client. @default undefined */
  readonly signal?: AbortSignal;
  /**
   * Where warnings (unparsable values, lost streams, missing keys) and other messages go.
   * @default warnings to console.warn, listener failures to console.error, nothing else
   */
  readonly logger?: ConfigLogger;
  /**
   * TLS settings for an `https://` url, passed to `http2.connect`: `ca` for a private certificate
   * authority, `cert` and `key` for a client certificate.
   * @default undefined (the system's trusted certificate authorities)
   */
  readonly tls?: Pick<SecureClientSessionOptions, 'ca' | 'cert' | 'key' | 'servername' | 'rejectUnauthorized'>;
  /**
   * How this process is named among the instances of its version (the console's `Instances`
   * section, `GET /api/configversions/{serviceId}/{versionId}/instances`), sent as `x-rc-instance-id`
   * with every call. Keep it stable for the life of the process, e.g. a pod name.
   * @default `<hostname>:<pid>`
   */
  readonly instanceId?: string;
  /**
   * Labels shown with this instance (region, zone, build, …), sent as `x-rc-labels`.
   * @default {}
   */
  readonly labels?: Readonly<Record<string, string>>;
}

/** The state of a {@link watchVersion} stream, as `onStatus` reports it. */
export type WatchStatus = 'live' | 'reconnecting';

/**
 * Options of {@link watchVersion}. The connection options (`url`, `serviceId`, `pollingInterval`,
 * `apiKey`, `token`, `signal`, `logger`, `tls`, `instanceId`, `labels`) mean what they mean for `connect`; aborting
 * `signal` ends the iteration without an error, and `logger.warn` hears of each lost stream once
 * per outage and cause.
 */
export interface WatchOptions extends Pick<
  ConnectOptions<ConfigSchema>,
  'url' | 'serviceId' | 'pollingInterval' | 'apiKey' | 'token' | 'signal' | 'logger' | 'tls' | 'instanceId' | 'labels'
> {
  /** The id (UUID) of the version to follow (not its label: watching registers nothing). */
  readonly versionId: string;
  /**
   * Only changes after this time. Without it the first batch holds every current value of the
   * version, then the changes follow.
   * @default undefined (every current value first)
   */
  readonly since?: Date;
  /**
   * More request headers for every call, e.g. the `cookie` of a console session. Not together
   * with `apiKey`/`token` for `authorization`.
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Called when the stream opens (`live`) and when it is lost (`reconnecting`, with the cause). A
   * function that throws is ignored.
   * @default undefined
   */
  readonly onStatus?: (status: WatchStatus, cause?: ConfigError) => void;
}

/**
 * Options of {@link readVersion}: the connection options of `connect` (`url`, `serviceId`,
 * `version`, `apiKey`, `token`, `signal`, `logger`, `tls`, `instanceId`, `labels`), without a schema.
 */
export type ReadVersionOptions = Pick<
  ConnectOptions<ConfigSchema>,
  'url' | 'serviceId' | 'version' | 'apiKey' | 'token' | 'signal' | 'logger' | 'tls' | 'instanceId' | 'labels'
>;
