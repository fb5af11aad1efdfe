import type http2 from 'node:http2';
import type { RequestHandler } from './inner-servers.js';

/**
 * A protocol served on the port beside the main request handler (gRPC beside REST): it claims the
 * streams and requests that are its own and leaves everything else untouched.
 */
export interface ProtocolHandler {
  /** Serves a raw HTTP/2 stream before any request is made of it, answering true; false leaves it. */
  readonly claimStream?: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean;
  /** Serves the request, answering true; false leaves it for the next protocol, or the main handler. */
  readonly claimRequest?: (...args: Parameters<RequestHandler>) => boolean;
  /** Sees every new HTTP/2 session (h2c and TLS), for keep-alive pings. */
  readonly onHttp2Session?: (session: http2.Http2Session) => void;
}

/**
 * Which protocol handles a request: the registered protocols in turn, in the order they were
 * registered, then the main handler (the REST API and the console) for everything they leave.
 * What the one-port listener calls for every stream, request and session.
 */
export class RequestDispatch {
  private readonly protocols: ProtocolHandler[] = [];

  constructor(private readonly main: RequestHandler) {}

  register(protocol: ProtocolHandler): void {
    this.protocols.push(protocol);
  }

  readonly handler: RequestHandler = (req, res) => {
    for (const protocol of this.protocols) if (protocol.claimRequest?.(req, res)) return;
    this.main(req, res);
  };

  readonly onHttp2Stream = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): boolean =>
    this.protocols.some((protocol) => protocol.claimStream?.(stream, headers) === true);

  readonly onHttp2Session = (session: http2.Http2Session): void => {
    for (const protocol of this.protocols) protocol.onHttp2Session?.(session);
  };
}
