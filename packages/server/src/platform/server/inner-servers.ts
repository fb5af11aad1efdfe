import http from 'node:http';
import http2 from 'node:http2';

export type RequestHandler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void;

export interface InnerServerOptions {
  readonly tls: { cert: Buffer; key: Buffer } | null;
  readonly http2Settings?: http2.Settings;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly handshakeTimeoutMs: number;
  /** Every request of every protocol that is not claimed by onStream. */
  readonly dispatch: RequestHandler;
  /** Sees every HTTP/2 stream first; true claims it (no request/response pair is made for it). */
  readonly onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean;
  readonly logger?: { error(obj: object, msg: string): void };
}

export interface InnerServers {
  readonly httpServer: http.Server;
  readonly h2cServer: http2.Http2Server;
  readonly secureServer: http2.Http2SecureServer | null;
}

/**
 * The Node servers the one-port listener hands its connections to: HTTP/1.1, h2c and (with a
 * certificate) TLS with ALPN h2 or http/1.1. They never listen themselves.
 */
export function createInnerServers(options: InnerServerOptions): InnerServers {
  const { requestTimeoutMs, dispatch, logger } = options;
  // Node enforces these from a periodic check; it runs often enough for the timeout to mean something.
  const http1Timeouts = {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(requestTimeoutMs / 4))),
  };
  const httpServer = http.createServer(http1Timeouts, dispatch);
  const h2cServer = http2.createServer({ settings: options.http2Settings });
  const secureServer = options.tls
    ? http2.createSecureServer({
        cert: options.tls.cert,
        key: options.tls.key,
        allowHTTP1: true,
        ALPNProtocols: ['h2', 'http/1.1'],
        settings: options.http2Settings,
        // Node's default lets a stalled handshake hold its connection for two minutes.
        handshakeTimeout: options.handshakeTimeoutMs,
      })
    : null;
  // HTTP/1.1 over TLS is served by the HTTP/2 server, which takes these only as properties; without
  // them its requests get Node's looser defaults and its idle keep-alive connections never close.
  if (secureServer) Object.assign(secureServer, http1Timeouts);

  // HTTP/2 streams are turned into compatibility requests here rather than by Node, so that a stream
  // claimed by onStream (the gRPC fan-out) never gets a request/response pair attached: those
  // cost memory on every long-lived stream and would answer trailers of their own.
  const onStream = (
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    _flags: number,
    rawHeaders: string[],
  ): void => {
    try {
      if (options.onStream(stream, headers)) return;
    } catch (err) {
      logger?.error({ err }, 'onHttp2Stream threw');
    }
    const req = new http2.Http2ServerRequest(stream, headers, {}, rawHeaders);
    const res = new http2.Http2ServerResponse(stream);
    if (headers[':method'] === 'CONNECT') {
      res.statusCode = 405;
      res.end();
      return;
    }
    if (headers.expect !== undefined) {
      if (headers.expect !== '100-continue') {
        res.statusCode = 417;
        res.end();
        return;
      }
      res.writeContinue();
    }
    // HTTP/2 has no request timeout of its own: a body trickled byte by byte would hold the stream
    // (and what the handler buffered) for ever.
    const timer = setTimeout(() => {
      if (!req.complete) stream.close(http2.constants.NGHTTP2_CANCEL);
    }, requestTimeoutMs);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
    stream.once('close', () => clearTimeout(timer));
    dispatch(req, res);
  };
  for (const server of [h2cServer, secureServer]) {
    if (!server) continue;
    // Node attaches its own compatibility layer when a 'request' listener is added; ours replaces it.
    server.removeAllListeners('newListener');
    server.on('stream', onStream);
  }
  // HTTP/1.1 over TLS (ALPN http/1.1) still arrives as 'request' events of the secure server.
  secureServer?.on('request', dispatch);

  // Node starts its HTTP/1 connection tracking on 'listening'; without it closeIdleConnections() is
  // a no-op and headersTimeout/requestTimeout (slow-client protection) are never enforced.
  httpServer.emit('listening');
  secureServer?.emit('listening');
  return { httpServer, h2cServer, secureServer };
}
