import path from 'node:path';
import type { ConnectOptions } from '../connect.js';
import { ConfigError } from '../errors.js';
import type { ConfigLogger } from '../live-config.js';
import type { ConfigSchema } from '../schema.js';
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
  readonly signal: AbortSignal | undefined;
  readonly logger: Required<ConfigLogger>;
  readonly tls: TlsSettings | undefined;
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
  'signal',
  'logger',
  'tls',
]);
const TLS_KNOWN = new Set(['ca', 'cert', 'key', 'servername', 'rejectUnauthorized']);

const fail = (message: string): never => {
  throw new ConfigError('INVALID_ARGUMENT', `connect(): ${message}`);
};

const noop = (): void => undefined;

function resolveLogger(logger: unknown): Required<ConfigLogger> {
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

function resolveUrl(url: unknown): string {
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

function milliseconds(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    fail(`options.${name} must be a number of milliseconds ≥ ${min}, got ${String(value)}`);
  }
  return value as number;
}

function resolveCredentials(options: ConnectOptions<ConfigSchema>): CredentialSource | undefined {
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

function resolveTls(tls: unknown, url: string): TlsSettings | undefined {
  if (tls === undefined) return undefined;
  if (typeof tls !== 'object' || tls === null) return fail('options.tls must be an object');
  const unknown = Object.keys(tls).filter((k) => !TLS_KNOWN.has(k));
  if (unknown.length > 0) fail(`unknown options.tls field ${unknown.join(', ')} (known: ${[...TLS_KNOWN].join(', ')})`);
  if (!url.startsWith('https:')) fail('options.tls needs an https:// url');
  return tls as TlsSettings;
}

/** Checks every option once and fills in the defaults; throws INVALID_ARGUMENT naming the option. */
export function resolveOptions(options: ConnectOptions<ConfigSchema>): ResolvedOptions {
  if (typeof options !== 'object' || options === null) return fail('expected an options object');
  const unknown = Object.keys(options).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) fail(`unknown option ${unknown.join(', ')} (known: ${[...KNOWN].join(', ')})`);
  const url = resolveUrl(options.url);
  if (typeof options.serviceId !== 'string' || !UUID.test(options.serviceId)) {
    fail(`options.serviceId must be the service's id (a UUID), got ${JSON.stringify(options.serviceId)}`);
  }
  const { version } = options;
  if (typeof version !== 'string' || version.trim() === '' || version.length > 200 || version.includes('\u0000')) {
    fail(`options.version must be a version label of 1 to 200 characters, got ${JSON.stringify(version)}`);
  }
  if ((options.schema as { kind?: unknown } | undefined)?.kind !== 'config') {
    fail('options.schema must be a schema made with defineConfig()');
  }
  const { cacheFile, signal } = options;
  if (cacheFile !== undefined && (typeof cacheFile !== 'string' || cacheFile === '')) {
    fail('options.cacheFile must be a file path');
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) fail('options.signal must be an AbortSignal');
  return {
    url,
    serviceId: options.serviceId.toLowerCase(),
    version,
    schema: options.schema,
    pollingInterval: milliseconds(
      options.pollingInterval,
      'pollingInterval',
      DEFAULT_POLLING_INTERVAL_MS,
      MIN_POLLING_INTERVAL_MS,
    ),
    startupTimeout: milliseconds(options.startupTimeout, 'startupTimeout', DEFAULT_STARTUP_TIMEOUT_MS, 1),
    credentials: resolveCredentials(options),
    cacheFile: cacheFile === undefined ? undefined : path.resolve(cacheFile),
    signal,
    logger: resolveLogger(options.logger),
    tls: resolveTls(options.tls, url),
  };
}
