import type { IncomingMessage, ServerResponse } from 'node:http';
import type http2 from 'node:http2';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { KONFIGO_LAYOUT_SERVICE_PATH, SERVICE_PATH } from '../../protocol.js';
import type { Metrics } from '../ops/index.js';
import { createConnectRouter, createContextValues, type Interceptor } from '@connectrpc/connect';
import type { ProtocolHandler } from '../../platform/server/request-dispatch.js';
import { configRpcRoutes, streamOriginKey, type ConfigRpcDependencies } from './config-rpc.js';
import { serveNativeUnary, type NativeCallOptions } from './native-calls.js';
import { inTurns } from '../../platform/turns.js';
import { isNativeGrpc } from './native-grpc.js';
import { serveNativeSubscribe } from './native-subscribe.js';
import { streamOriginOf } from './stream-admission.js';

/** `/<any package>.RealtimeConfigGrpcService/<Method>` or `/RealtimeConfigGrpcService/<Method>`. */
const SERVICE_ALIAS = /^\/(?:[A-Za-z_][\w.]*\.)?RealtimeConfigGrpcService\/(\w+)$/;

/** The methods of the service; calls of any other name are counted as `unknown`. */
const METHODS = ['GetConfig', 'IsVersionExists', 'CreateVersion', 'StartSubscribe'] as const;
type Method = (typeof METHODS)[number];
const isMethod = (name: string): name is Method => (METHODS as readonly string[]).includes(name);

/** Grpc:GetConfigLayout: the default GetConfigResponse, or the one of the existing Konfigo SDKs (docs/grpc.md). */
export type GetConfigLayout = 'Spec' | 'Konfigo';

/**
 * The canonical method path for any package prefix (docs/grpc.md, Transports and paths), so clients generated
 * from a proto with another package work unchanged. Other paths are returned as they are.
 */
export function canonicalPath(path: string): string {
  const match = SERVICE_ALIAS.exec(path);
  return match ? `${SERVICE_PATH}/${match[1]}` : path;
}

export interface GrpcGatewayOptions extends ConfigRpcDependencies, NativeCallOptions {
  readonly metrics: Metrics;
  readonly keepAliveMs: number;
  readonly getConfigLayout: GetConfigLayout;
  /** Run around every call of the Connect-ES path (the one forwarded calls take, docs/regions.md). */
  readonly interceptors?: Interceptor[];
}

/** The gRPC protocol as the platform's request dispatch sees it (platform/server/request-dispatch.ts). */
export interface GrpcGateway extends Required<ProtocolHandler> {
  /** Aborts Connect's in-flight calls; open streams are ended by Subscriptions.closeAll. */
  shutdown(): void;
}

/**
 * gRPC on the shared port: native gRPC over HTTP/2 on the native path (every method; StartSubscribe
 * is the fan-out fast path), gRPC-Web and the Connect protocol through Connect-ES, HTTP/2 keep-alive.
 * It claims the calls of its services; every other request is left to the REST API.
 */
export function createGrpcGateway(options: GrpcGatewayOptions): GrpcGateway {
  const shutdownController = new AbortController();
  const routes = configRpcRoutes(options);
  // The paths Connect-ES serves (it matches them exactly, without the query).
  const router = createConnectRouter();
  routes(router);
  const connectPaths = new Set(router.handlers.map((handler) => handler.requestPath));
  const connectHandler = connectNodeAdapter({
    routes,
    shutdownSignal: shutdownController.signal,
    interceptors: options.interceptors ?? [],
    // The connection a stream counts against: the HTTP/2 session, or the HTTP/1.1 socket (gRPC-Web).
    contextValues: (req) =>
      createContextValues().set(
        streamOriginKey,
        streamOriginOf('stream' in req ? req.stream.session : req.socket, req.socket.remoteAddress),
      ),
    // Before and after decompression, on every protocol Connect-ES serves.
    readMaxBytes: options.maxReceiveMessageBytes,
    grpc: true,
    grpcWeb: true,
    connect: true,
  });
  const konfigoGetConfig = options.getConfigLayout === 'Konfigo';
  const count = (name: string, path: 'native' | 'connect'): void =>
    options.metrics.grpcCalls.inc({ method: isMethod(name) ? name : 'unknown', path });

  const keepAlive = createKeepAlive(options.keepAliveMs);

  return {
    claimRequest(req, res) {
      const url = req.url ?? '/';
      let path = canonicalPath(url);
      if (path.startsWith(`${SERVICE_PATH}/`)) {
        const method = path.slice(SERVICE_PATH.length + 1);
        count(method, 'connect');
        if (konfigoGetConfig && method === 'GetConfig') path = `${KONFIGO_LAYOUT_SERVICE_PATH}/GetConfig`;
      }
      if (!connectPaths.has(path.split('?', 2)[0] ?? '')) return false;
      if (path !== url) req.url = path;
      connectHandler(req as IncomingMessage, res as ServerResponse);
      return true;
    },
    claimStream(stream, headers) {
      if (!isNativeGrpc(headers)) return false;
      const path = canonicalPath(headers[':path'] ?? '');
      if (!path.startsWith(`${SERVICE_PATH}/`)) return false;
      const method = path.slice(SERVICE_PATH.length + 1);
      if (!isMethod(method)) return false; // Connect-ES answers UNIMPLEMENTED
      count(method, 'native');
      if (method === 'StartSubscribe') serveNativeSubscribe(stream, headers, options);
      else serveNativeUnary(method, stream, headers, options);
      return true;
    },
    onHttp2Session(session) {
      keepAlive.add(session);
    },
    shutdown() {
      shutdownController.abort();
      keepAlive.stop();
    },
  };
}

/**
 * Pings every HTTP/2 connection each interval; one whose previous ping is still unanswered is
 * closed. A peer that vanished without closing its connection (power loss, a dropped NAT entry)
 * would otherwise keep an idle stream open forever. One timer for all connections; a round walks
 * them a slice per turn of the event loop, so 10,000 pings do not hold back a change's fan-out.
 */
function createKeepAlive(intervalMs: number) {
  const awaitingPong = new Map<http2.Http2Session, boolean>();
  let walking = false;
  let stopped = false;
  const visit = ([session, waiting]: [http2.Http2Session, boolean]) => {
    if (session.destroyed || session.closed) return;
    if (waiting) {
      session.destroy();
      return;
    }
    awaitingPong.set(session, true);
    try {
      session.ping((err) => {
        if (!err && awaitingPong.has(session)) awaitingPong.set(session, false);
      });
    } catch {
      session.destroy();
    }
  };
  const timer = setInterval(() => {
    if (walking) return; // the last round is still going (it takes a turn per slice)
    walking = true;
    inTurns(awaitingPong.entries(), { visit, going: () => !stopped, done: () => (walking = false) });
  }, intervalMs);
  timer.unref();
  return {
    add(session: http2.Http2Session) {
      awaitingPong.set(session, false);
      session.once('close', () => awaitingPong.delete(session));
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
