import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { SecureClientSessionOptions } from 'node:http2';
import { ConfigError, type ConfigErrorCode } from '../errors.js';
import { RealtimeConfigGrpcService } from './protocol.js';

/** Where a bearer credential comes from: a fixed key, or a function asked again on UNAUTHENTICATED. */
export type CredentialSource = string | (() => string | Promise<string>);

/** TLS settings passed to `http2.connect` (custom CA, client certificate). */
export type TlsSettings = Pick<SecureClientSessionOptions, 'ca' | 'cert' | 'key' | 'servername' | 'rejectUnauthorized'>;

export interface RpcOptions {
  readonly url: string;
  readonly credentials: CredentialSource | undefined;
  readonly tls: TlsSettings | undefined;
  /** Sent on every call besides the bearer credential (a session cookie, a tracing header). */
  readonly headers?: Readonly<Record<string, string>>;
}

// Keep-alive on the client side too: a silent network drop is noticed within ~40 s even when the
// server has nothing to send.
const PING_INTERVAL_MS = 30_000;
const PING_TIMEOUT_MS = 10_000;
// The server refuses messages over 4 MiB; fail here with a clear error instead.
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** The bearer token of each call; a token function's answer is kept until the server refuses it. */
class Credentials {
  private pending: Promise<string> | undefined;

  constructor(private readonly source: CredentialSource) {}

  get refreshable(): boolean {
    return typeof this.source === 'function';
  }

  token(): Promise<string> {
    const source = this.source;
    if (typeof source === 'string') return Promise.resolve(source);
    this.pending ??= (async () => {
      try {
        const token = await source();
        if (typeof token !== 'string' || token === '') throw new TypeError('it returned no token');
        return token;
      } catch (error) {
        this.pending = undefined;
        const reason = error instanceof Error ? error.message : String(error);
        throw new ConfigError('UNAUTHENTICATED', `the token function failed: ${reason}`, { cause: error });
      }
    })();
    return this.pending;
  }

  invalidate(): void {
    this.pending = undefined;
  }
}

/**
 * The Connect-ES gRPC client of one LiveConfig: its own HTTP/2 connection (closed with it), the
 * bearer header on every call, no retry or back-off of its own (the client's reconnect loop
 * decides when to try again).
 */
export class Rpc {
  readonly client: Client<typeof RealtimeConfigGrpcService>;
  readonly transport: Transport;
  private readonly sessions: Http2SessionManager;
  private readonly credentials: Credentials | undefined;

  constructor(readonly options: RpcOptions) {
    this.credentials = options.credentials === undefined ? undefined : new Credentials(options.credentials);
    this.sessions = new Http2SessionManager(
      options.url,
      { pingIntervalMs: PING_INTERVAL_MS, pingTimeoutMs: PING_TIMEOUT_MS },
      options.tls,
    );
    const credentials = this.credentials;
    const headers = Object.entries(options.headers ?? {});
    const interceptors: Interceptor[] = [
      (next) => async (request) => {
        for (const [name, value] of headers) request.header.set(name, value);
        if (credentials) request.header.set('authorization', `Bearer ${await credentials.token()}`);
        return next(request);
      },
    ];
    this.transport = createGrpcTransport({
      baseUrl: options.url,
      sessionManager: this.sessions,
      interceptors,
      writeMaxBytes: MAX_REQUEST_BYTES,
    });
    this.client = createClient(RealtimeConfigGrpcService, this.transport);
  }

  /** Runs a call; when the server answers UNAUTHENTICATED and the token can be refreshed, once more with a new one. */
  async withFreshToken<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!this.refreshAfter(error)) throw error;
      return call();
    }
  }

  /**
   * After a failed call: true when the server refused the credential and a fresh token may fix it
   * (the token function is asked again on the next call).
   */
  refreshAfter(error: unknown): boolean {
    const refusal = error instanceof ConnectError && error.code === Code.Unauthenticated;
    if (!refusal || !this.credentials?.refreshable) return false;
    this.credentials.invalidate();
    return true;
  }

  /** Closes the connection and every stream on it. */
  close(): void {
    this.sessions.abort();
  }
}

const CODES: Partial<Record<Code, ConfigErrorCode>> = {
  [Code.Unauthenticated]: 'UNAUTHENTICATED',
  [Code.PermissionDenied]: 'PERMISSION_DENIED',
  [Code.NotFound]: 'NOT_FOUND',
  [Code.InvalidArgument]: 'INVALID_ARGUMENT',
  [Code.Internal]: 'INTERNAL',
};

/** Errors that retrying will not fix: the request or the credentials are wrong. */
export function isPermanent(error: ConfigError): boolean {
  return (
    error.code === 'INVALID_ARGUMENT' ||
    error.code === 'NOT_FOUND' ||
    error.code === 'UNAUTHENTICATED' ||
    error.code === 'PERMISSION_DENIED'
  );
}

/** Any failure of a call as a ConfigError naming what was tried; network failures are UNAVAILABLE. */
export function callError(error: unknown, what: string): ConfigError {
  if (error instanceof ConfigError) {
    return new ConfigError(error.code, `${what}: ${error.message}`, { cause: error, retryAfterMs: error.retryAfterMs });
  }
  if (error instanceof ConnectError) {
    const retryAfter = Number(error.metadata.get('retry-after-ms') ?? Number.NaN);
    // A Node error underneath (TLS verification, socket) means the server was not reached.
    const networkFailure = typeof (error.cause as { code?: unknown } | undefined)?.code === 'string';
    const code = networkFailure ? 'UNAVAILABLE' : (CODES[error.code] ?? 'UNAVAILABLE');
    const unimplemented = error.code === Code.Unimplemented ? ' (is this a realtime configuration server?)' : '';
    return new ConfigError(code, `${what}: ${error.rawMessage} [${Code[error.code]}]${unimplemented}`, {
      cause: error,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new ConfigError('INTERNAL', `${what}: ${reason}`, { cause: error });
}
