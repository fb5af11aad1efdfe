import path from 'node:path';
import type { ConnectOptions, ReadVersionOptions, WatchOptions } from '../client-options.js';
import { ConfigError } from '../errors.js';
import type { ConfigLogger } from '../live-config.js';
import type { ConfigSchema } from '../schema.js';
import { defaultInstanceId, metadataHeaders } from './metadata.js';
import type { CredentialSource, TlsSettings } from './rpc.js';

/** ConnectOptions checked once, with every default filled in. */
export interface ResolvedOptions {
  readonly url: string;
  readonly serviceId: string;
  readonly version: string;
  readonly schema: ConfigSchema;
  readonly pollingInterval: number;
  readonly startupTimeout: number;
  readonly credentials: CredentialSource | undefined;
  readonly cacheFile: string | undefined;
  /** The 32-byte key of secret values in the cache file; undefined: secrets are not cached. */
  readonly cacheKey: Buffer | undefined;
  readonly signal: AbortSignal | undefined;
  readonly logger: Required<ConfigLogger>;
  readonly tls: TlsSettings | undefined;
  /** The x-rc-* headers: instance id, SDK, labels. */
  readonly headers: Readonly<Record<string, string>>;
}

export const DEFAULT_POLLING_INTERVAL_MS = 5000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
const MIN_POLLING_INTERVAL_MS = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KNOWN = new Set([
  'url',
  'serviceId',
  'version',
  'schema',
  'pollingInterval',
  'startupTimeout',
  'apiKey',
  'token',
  'cacheFile',
  'cacheKey',
  'signal',
  'logger',
  'tls',
  'instanceId',
  'labels',
]);
const TLS_KNOWN = new Set(['ca', 'cert', 'key', 'servername', 'rejectUnauthorized']);

type Fail = (message: string) => never;

const failIn =
  (caller: string): Fail =>
  (message) => {
    throw new ConfigError('INVALID_ARGUMENT', `${caller}(): ${message}`);
  };

const fail = failIn('connect');

const noop = (): void => undefined;

function resolveLogger(logger: unknown, fail: Fail): Required<ConfigLogger> {
  if (logger === undefined) {
    return { warn: (m) => console.warn(m), error: (m) => console.error(m), info: noop, debug: noop };
  }
  const given = logger as Partial<Record<keyof ConfigLogger, unknown>>;
  if (typeof logger !== 'object' || logger === null || typeof given.warn !== 'function') {
    fail('options.logger must have a warn(message) method (console and pino loggers do)');
  }
  const method = (name: keyof ConfigLogger, fallback: (m: string) => void): ((m: string) => void) => {
    const fn = given[name];
    if (typeof fn !== 'function') return fallback;
    return (m) => {
      try {
        fn.call(logger, m);
      } catch {
        // A logger that throws must not take the application, or the client, down.
      }
    };
  };
  const warn = method('warn', noop);
  return { warn, error: method('error', warn), info: method('info', noop), debug: method('debug', noop) };
}

function resolveUrl(url: unknown, fail: Fail): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return fail(`options.url must be an http:// or https:// URL of the server, got ${JSON.stringify(url)}`);
  }
  return parsed.href.replace(/\/+$/, '');
}

function milliseconds(value: unknown, name: string, fallback: number, min: number, fail: Fail): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    fail(`options.${name} must be a number of milliseconds ≥ ${min}, got ${String(value)}`);
  }
  return value as number;
}

function resolveCredentials(options: CommonOptions, fail: Fail): CredentialSource | undefined {
  const { apiKey, token } = options;
  if (apiKey !== undefined && token !== undefined) fail('give options.apiKey or options.token, not both');
  if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey.trim() === '')) {
    fail('options.apiKey must be a non-empty string');
  }
  if (token !== undefined && typeof token !== 'function' && (typeof token !== 'string' || token.trim() === '')) {
    fail('options.token must be a non-empty string or a function returning one');
  }
  return apiKey ?? token;
}

function resolveTls(tls: unknown, url: string, fail: Fail): TlsSettings | undefined {
  if (tls === undefined) return undefined;
  if (typeof tls !== 'object' || tls === null) return fail('options.tls must be an object');
  const unknown = Object.keys(tls).filter((k) => !TLS_KNOWN.has(k));
  if (unknown.length > 0) fail(`unknown options.tls field ${unknown.join(', ')} (known: ${[...TLS_KNOWN].join(', ')})`);
  if (!url.startsWith('https:')) fail('options.tls needs an https:// url');
  return tls as TlsSettings;
}

/** The options `connect` and `watchVersion` share. */
type CommonOptions = Pick<
  ConnectOptions<ConfigSchema>,
  'url' | 'serviceId' | 'pollingInterval' | 'apiKey' | 'token' | 'signal' | 'logger' | 'tls' | 'instanceId' | 'labels'
>;

interface ResolvedCommon {
  readonly url: string;
  readonly serviceId: string;
  readonly pollingInterval: number;
  readonly credentials: CredentialSource | undefined;
  readonly signal: AbortSignal | undefined;
  readonly logger: Required<ConfigLogger>;
  readonly tls: TlsSettings | undefined;
  /** The x-rc-* headers: instance id, SDK, labels. */
  readonly metadata: Readonly<Record<string, string>>;
}

const MAX_INSTANCE_ID_CHARS = 200;

function resolveMetadata(options: CommonOptions, fail: Fail): Record<string, string> {
  const { instanceId, labels } = options;
  if (
    instanceId !== undefined &&
    (typeof instanceId !== 'string' ||
      instanceId === '' ||
      instanceId.length > MAX_INSTANCE_ID_CHARS ||
      /[^\x20-\x7e]/.test(instanceId))
  ) {
    fail(`options.instanceId must be 1 to ${MAX_INSTANCE_ID_CHARS} printable ASCII characters`);
  }
  if (labels !== undefined) {
    if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) {
      fail('options.labels must be an object of strings');
    }
    for (const [key, value] of Object.entries(labels)) {
      if (key === '') fail('options.labels: a key is empty');
      if (typeof value !== 'string') fail(`options.labels.${key} must be a string`);
    }
  }
  return metadataHeaders(instanceId ?? defaultInstanceId(), labels ?? {});
}

function resolveCommon(options: CommonOptions, known: ReadonlySet<string>, fail: Fail): ResolvedCommon {
  if (typeof options !== 'object' || options === null) return fail('expected an options object');
  const unknown = Object.keys(options).filter((k) => !known.has(k));
  if (unknown.length > 0) fail(`unknown option ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  const url = resolveUrl(options.url, fail);
  if (typeof options.serviceId !== 'string' || !UUID.test(options.serviceId)) {
    fail(`options.serviceId must be the service's id (a UUID), got ${JSON.stringify(options.serviceId)}`);
  }
  const { signal } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) fail('options.signal must be an AbortSignal');
  return {
    url,
    serviceId: options.serviceId.toLowerCase(),
    pollingInterval: milliseconds(
      options.pollingInterval,
      'pollingInterval',
      DEFAULT_POLLING_INTERVAL_MS,
      MIN_POLLING_INTERVAL_MS,
      fail,
    ),
    credentials: resolveCredentials(options, fail),
    signal,
    logger: resolveLogger(options.logger, fail),
    tls: resolveTls(options.tls, url, fail),
    metadata: resolveMetadata(options, fail),
  };
}

function checkLabel(version: unknown, fail: Fail): asserts version is string {
  if (typeof version !== 'string' || version.trim() === '' || version.length > 200 || version.includes('\u0000')) {
    fail(`options.version must be a version label of 1 to 200 characters, got ${JSON.stringify(version)}`);
  }
}

/** Checks every option once and fills in the defaults; throws INVALID_ARGUMENT naming the option. */
export function resolveOptions(options: ConnectOptions<ConfigSchema>): ResolvedOptions {
  const common = resolveCommon(options, KNOWN, fail);
  const { version, cacheFile, cacheKey } = options;
  checkLabel(version, fail);
  if ((options.schema as { kind?: unknown } | undefined)?.kind !== 'config') {
    fail('options.schema must be a schema made with defineConfig()');
  }
  if (cacheFile !== undefined && (typeof cacheFile !== 'string' || cacheFile === '')) {
    fail('options.cacheFile must be a file path');
  }
  const key = cacheKey === undefined ? undefined : Buffer.from(String(cacheKey), 'base64');
  if (cacheKey !== undefined && (typeof cacheKey !== 'string' || key?.length !== 32)) {
    fail('options.cacheKey must be 32 random bytes in base64 (openssl rand -base64 32)');
  }
  return {
    ...common,
    headers: common.metadata,
    version,
    schema: options.schema,
    startupTimeout: milliseconds(options.startupTimeout, 'startupTimeout', DEFAULT_STARTUP_TIMEOUT_MS, 1, fail),
    cacheFile: cacheFile === undefined ? undefined : path.resolve(cacheFile),
    cacheKey: key,
  };
}

/** WatchOptions checked once, with every default filled in. */
export interface ResolvedWatchOptions extends ResolvedCommon {
  readonly versionId: string;
  /** µs since the epoch; undefined: every current value first. */
  readonly after: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

const WATCH_KNOWN = new Set([
  'url',
  'serviceId',
  'versionId',
  'since',
  'pollingInterval',
  'apiKey',
  'token',
  'headers',
  'signal',
  'logger',
  'tls',
  'onStatus',
  'instanceId',
  'labels',
]);
const failWatch = failIn('watchVersion');
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;

/** Checks the options of watchVersion once; throws INVALID_ARGUMENT naming the option. */
export function resolveWatchOptions(options: WatchOptions): ResolvedWatchOptions {
  const common = resolveCommon(options, WATCH_KNOWN, failWatch);
  const { versionId, since, headers, onStatus } = options;
  if (typeof versionId !== 'string' || !UUID.test(versionId)) {
    failWatch(`options.versionId must be the version's id (a UUID), got ${JSON.stringify(versionId)}`);
  }
  if (since !== undefined && !(since instanceof Date && Number.isFinite(since.getTime()))) {
    failWatch('options.since must be a valid Date');
  }
  const given = headers ?? {};
  if (typeof given !== 'object' || given === null) failWatch('options.headers must be an object of strings');
  for (const [name, value] of Object.entries(given)) {
    if (!HEADER_NAME.test(name)) failWatch(`options.headers: ${JSON.stringify(name)} is not a header name`);
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      failWatch(`options.headers.${name} must be a string on one line`);
    }
    if (name.toLowerCase() === 'authorization' && common.credentials !== undefined) {
      failWatch('give options.apiKey/token or an authorization header, not both');
    }
  }
  if (onStatus !== undefined && typeof onStatus !== 'function') failWatch('options.onStatus must be a function');
  return {
    ...common,
    versionId: versionId.toLowerCase(),
    after: since === undefined ? undefined : since.getTime() * 1000,
    headers: { ...common.metadata, ...given },
  };
}

/** ReadVersionOptions checked once, with every default filled in. */
export interface ResolvedReadOptions extends ResolvedCommon {
  readonly version: string;
  readonly headers: Readonly<Record<string, string>>;
}

const READ_KNOWN = new Set([
  'url',
  'serviceId',
  'version',
  'apiKey',
  'token',
  'signal',
  'logger',
  'tls',
  'instanceId',
  'labels',
]);

/** Checks the options of readVersion once; throws INVALID_ARGUMENT naming the option. */
export function resolveReadOptions(options: ReadVersionOptions): ResolvedReadOptions {
  const failRead = failIn('readVersion');
  const common = resolveCommon(options, READ_KNOWN, failRead);
  checkLabel(options.version, failRead);
  return { ...common, version: options.version, headers: common.metadata };
}
