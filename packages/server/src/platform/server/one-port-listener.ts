import http from 'node:http';
import type http2 from 'node:http2';
import net from 'node:net';
import type tls from 'node:tls';
import { ConnectionTable, type ShedEvent } from './connection-table.js';
import { createInnerServers, type RequestHandler } from './inner-servers.js';
import { defaultMaxConnections, readOpenFileLimit } from './open-file-limit.js';

/**
 * Connections the kernel may hold for us before they are accepted (capped by net.core.somaxconn).
 * Node's default of 511 overflows when a fleet reconnects at once after a restart: the kernel then
 * drops the overflow's SYNs, and those clients only retry after 1, 3, 7, 15 s, far beyond their own
 * jittered reconnect.
 */
const LISTEN_BACKLOG = 4096;

export type { ShedEvent, ShedReason } from './connection-table.js';

export type { RequestHandler } from './inner-servers.js';

export interface OnePortListenerOptions {
  handler: RequestHandler;
  /** When set, TLS connections are served (ALPN h2 or http/1.1); otherwise they are dropped. */
  tls?: { cert: Buffer; key: Buffer } | null;
  /**
   * Sees every HTTP/2 stream before the request handler does. Returning true claims the stream: the
   * request handler is not called for it. Lets the gRPC fan-out serve raw streams.
   */
  onHttp2Stream?: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean;
  /** Called for every new HTTP/2 session (h2c and TLS). */
  onHttp2Session?: (session: http2.Http2Session) => void;
  http2Settings?: http2.Settings;
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /**
   * How long a new connection may take to send enough bytes to be classified before it is dropped.
   * @default 10000
   */
  sniffTimeoutMs?: number;
  /**
   * How long a request's headers and body may take to arrive (HTTP/1.1 and HTTP/2 requests that are
   * not claimed by onHttp2Stream): a slower HTTP/1.1 request is answered 408 and its connection
   * closed, a slower HTTP/2 stream is reset.
   * @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * At most this many open connections; at the limit a new connection evicts the one idle the
   * longest and is refused only when none is idle (see ConnectionTable).
   * @default the open-file limit less a headroom (defaultMaxConnections)
   */
  maxConnections?: number;
  /** The same per client address; 0 means no limit. @default 0 */
  maxConnectionsPerAddress?: number;
  /**
   * An HTTP/2 connection without an open stream, or an HTTP/1.1 connection between requests, is
   * closed after this long (HTTP/2 with GOAWAY). HTTP/1.1 keep-alive ends after at most 5 s anyway.
   * @default 120000
   */
  idleTimeoutMs?: number;
  /** Called for every connection the listener evicts or refuses (metrics). */
  onConnectionShed?: (event: ShedEvent) => void;
}

export interface OnePortListener {
  listen(port: number, host: string): Promise<{ port: number; host: string }>;
  readonly address: { port: number; host: string } | null;
  /** Stops accepting, lets in-flight requests and streams finish, and destroys what is left after `timeoutMs` (default 10000). */
  close(options?: { timeoutMs?: number }): Promise<void>;
  readonly http2Sessions: ReadonlySet<http2.Http2Session>;
  /** Accepted TCP connections not yet closed. */
  readonly openConnections: number;
}

type Protocol = 'tls' | 'h2c' | 'http1';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const TLS_HANDSHAKE_RECORD = 0x16;
// A connection that has not said enough to be classified by then is a scanner or a stuck client;
// it is not yet owned by any Node server, so none of their timeouts would ever close it.
const DEFAULT_SNIFF_TIMEOUT_MS = 10_000;
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
// Node's own default for HTTP/1.1 keep-alive (its HTTP/2 server with allowHTTP1 has none at all).
const HTTP1_KEEP_ALIVE_TIMEOUT_MS = 5000;

/**
 * Decides the protocol from the first bytes, or returns undefined while the bytes seen so far are
 * still a prefix of the HTTP/2 preface (more must arrive before it can be told from HTTP/1.1).
 */
export function classifyConnection(head: Buffer): Protocol | undefined {
  if (head.length === 0) return undefined;
  if (head[0] === TLS_HANDSHAKE_RECORD) return 'tls';
  const n = Math.min(head.length, HTTP2_PREFACE.length);
  if (head.compare(HTTP2_PREFACE, 0, n, 0, n) !== 0) return 'http1';
  return head.length >= HTTP2_PREFACE.length ? 'h2c' : undefined;
}

export function createOnePortListener(options: OnePortListenerOptions): OnePortListener {
  const { logger } = options;
  const sniffTimeoutMs = options.sniffTimeoutMs ?? DEFAULT_SNIFF_TIMEOUT_MS;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const connections = new ConnectionTable({
    maxConnections: options.maxConnections ?? defaultMaxConnections(readOpenFileLimit()),
    maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? 0,
    idleTimeoutMs,
    ...(options.onConnectionShed ? { onShed: options.onConnectionShed } : {}),
    ...(logger ? { logger } : {}),
  });
  let closing = false;
  let closePromise: Promise<void> | null = null;
  let boundAddress: { port: number; host: string } | null = null;

  // Every accepted TCP socket until it closes: close() waits for these and destroys them on timeout.
  const rawSockets = new Set<net.Socket>();
  // Sockets whose first bytes have not been classified yet (no server owns them).
  const sniffing = new Set<net.Socket>();
  // TLS sockets wrap the raw socket's handle; destroying the TLS side is what tears the connection down cleanly.
  const tlsSockets = new Set<tls.TLSSocket>();
  const sessions = new Set<http2.Http2Session>();
  // HTTP/1.1 responses still being written, so close() can make their connections close afterwards.
  const http1Responses = new Set<http.ServerResponse>();

  const dispatch = (
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ): void => {
    if (res instanceof http.ServerResponse) {
      trackHttp1Response(res);
      connections.requestStarted(req.socket, res);
    }
    try {
      options.handler(req, res);
    } catch (err) {
      // The handler is synchronous by contract; a throw here would otherwise become an uncaught
      // exception inside Node's server and take the whole process down.
      logger?.error({ err }, 'request handler threw');
      if (!res.headersSent) {
        res.statusCode = 500;
      }
      res.end();
    }
  };

  const trackHttp1Response = (res: http.ServerResponse): void => {
    if (closing) res.shouldKeepAlive = false;
    http1Responses.add(res);
    res.once('close', () => {
      http1Responses.delete(res);
    });
  };

  const { httpServer, h2cServer, secureServer } = createInnerServers({
    tls: options.tls ?? null,
    ...(options.http2Settings ? { http2Settings: options.http2Settings } : {}),
    requestTimeoutMs,
    keepAliveTimeoutMs: Math.min(HTTP1_KEEP_ALIVE_TIMEOUT_MS, idleTimeoutMs),
    handshakeTimeoutMs: sniffTimeoutMs,
    dispatch,
    onStream: (stream, headers) => {
      connections.streamOpened(stream);
      return options.onHttp2Stream?.(stream, headers) ?? false;
    },
    ...(logger ? { logger } : {}),
  });

  const onSession = (session: http2.Http2Session): void => {
    sessions.add(session);
    session.once('close', () => {
      sessions.delete(session);
      maybeFinishClose();
    });
    // Session errors are reported through 'sessionError' on the server and then close the session;
    // a listener here keeps an unhandled 'error' from crashing the process.
    session.on('error', () => {});
    connections.sessionStarted(session);
    try {
      options.onHttp2Session?.(session);
    } catch (err) {
      logger?.error({ err }, 'onHttp2Session threw');
    }
    // A TLS handshake that completes after close() started still yields a session; refuse its streams.
    if (closing) session.close();
  };
  h2cServer.on('session', onSession);
  secureServer?.on('session', onSession);

  const onSessionError = (err: Error): void => {
    logger?.warn({ err }, 'HTTP/2 session error');
  };
  h2cServer.on('sessionError', onSessionError);
  secureServer?.on('sessionError', onSessionError);

  secureServer?.on('secureConnection', (tlsSocket: tls.TLSSocket) => {
    tlsSockets.add(tlsSocket);
    tlsSocket.once('close', () => tlsSockets.delete(tlsSocket));
    connections.established(tlsSocket, tlsSocket);
  });
  // Failed handshakes are routine (scanners, clients that do not trust the certificate); Node's
  // default handler destroys the socket, which is all that is needed.

  const handOver = (sock: net.Socket, head: Buffer, protocol: Protocol): void => {
    const target: net.Server | null = protocol === 'tls' ? secureServer : protocol === 'h2c' ? h2cServer : httpServer;
    if (!target) {
      sock.destroy();
      return;
    }
    if (protocol !== 'tls') connections.established(sock);
    sock.pause();
    sock.unshift(head);
    target.emit('connection', sock);
    // Resuming synchronously would let the buffered bytes flow before the HTTP/2 session has read
    // them from the buffer (it does so on the next tick), and the preface would be lost.
    process.nextTick(() => sock.resume());
  };

  const onConnection = (sock: net.Socket): void => {
    // Permanent: after a TLS hand-over nobody else listens on the raw socket, and an 'error' event
    // without a listener would crash the process.
    sock.on('error', () => {});
    if (closing) {
      sock.destroy();
      return;
    }
    if (!connections.admit(sock)) return;
    rawSockets.add(sock);
    sock.once('close', () => {
      rawSockets.delete(sock);
      maybeFinishClose();
    });

    let head: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => sock.destroy(), sniffTimeoutMs);
    timer.unref();
    sniffing.add(sock);
    // Drops every reference to the sniffing state, so a long-lived connection (one per subscriber)
    // keeps none of it.
    const cleanup = (): void => {
      sniffing.delete(sock);
      clearTimeout(timer);
      sock.removeListener('data', onData);
      sock.removeListener('end', onEnd);
      sock.removeListener('close', cleanup);
    };
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const protocol = classifyConnection(head);
      if (protocol === undefined) return;
      cleanup();
      handOver(sock, head, protocol);
    };
    // The peer gave up (or sent half an HTTP/2 preface) before it could be classified.
    const onEnd = (): void => {
      cleanup();
      sock.destroy();
    };
    sock.on('data', onData);
    sock.once('end', onEnd);
    sock.once('close', cleanup);
  };

  // Node's HTTP servers disable Nagle on their sockets; these sockets come from our listener, so do
  // the same here or small gRPC frames wait for delayed ACKs.
  const netServer = net.createServer({ noDelay: true }, onConnection);
  netServer.on('error', (err) => {
    // Errors after a successful listen (e.g. EMFILE on accept) must not crash the process.
    if (boundAddress) logger?.error({ err }, 'listener error');
  });

  let netServerClosed = false;
  let finishClose: (() => void) | null = null;
  const maybeFinishClose = (): void => {
    if (!finishClose || !netServerClosed) return;
    if (rawSockets.size > 0 || sessions.size > 0) return;
    finishClose();
  };

  const listen = (port: number, host: string): Promise<{ port: number; host: string }> =>
    new Promise((resolve, reject) => {
      if (closing) {
        reject(new Error('listener is closed'));
        return;
      }
      const onError = (err: Error): void => reject(err);
      netServer.once('error', onError);
      netServer.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
        netServer.removeListener('error', onError);
        const addr = netServer.address();
        boundAddress =
          addr !== null && typeof addr === 'object' ? { port: addr.port, host: addr.address } : { port, host };
        resolve(boundAddress);
      });
    });

  const startClose = async (timeoutMs: number): Promise<void> => {
    closing = true;
    connections.stop();
    const done = new Promise<void>((resolve) => {
      finishClose = resolve;
    });
    // Stops accepting; its callback fires only once every accepted socket has closed, so the
    // socket and session sets below are what actually gets things closed.
    netServer.close(() => {
      netServerClosed = true;
      maybeFinishClose();
    });

    // Connections still being sniffed have not sent a request yet: nothing to finish.
    for (const sock of sniffing) sock.destroy();

    // Closes idle keep-alive connections and stops Node's connection-checking timers. The inner
    // servers never listened, so their own close() callbacks would only report "not running".
    httpServer.close();
    secureServer?.close();
    h2cServer.close();

    // In-flight HTTP/1.1 responses: if headers are not out yet, Node sends `Connection: close` and
    // closes the socket after the response; otherwise close the socket once the response is done.
    for (const res of http1Responses) {
      if (!res.headersSent) {
        res.shouldKeepAlive = false;
      } else {
        const sock = res.socket;
        res.once('close', () => sock?.destroySoon());
      }
    }

    // GOAWAY: refuses new streams and lets the open ones finish; the session closes when they have.
    for (const session of sessions) session.close();

    const timer = setTimeout(() => {
      if (logger && (sessions.size > 0 || rawSockets.size > 0)) {
        logger.warn(
          { sessions: sessions.size, connections: rawSockets.size, timeoutMs },
          'graceful close timed out; destroying remaining connections',
        );
      }
      for (const session of sessions) session.destroy();
      for (const sock of tlsSockets) sock.destroy();
      for (const sock of rawSockets) sock.destroy();
    }, timeoutMs);
    timer.unref();

    maybeFinishClose();
    await done;
    clearTimeout(timer);
    boundAddress = null;
  };

  return {
    listen,
    get address() {
      return boundAddress;
    },
    close(closeOptions) {
      closePromise ??= startClose(closeOptions?.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
      return closePromise;
    },
    http2Sessions: sessions,
    get openConnections() {
      return rawSockets.size;
    },
  };
}
