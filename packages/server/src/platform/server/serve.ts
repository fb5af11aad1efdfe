import type { Logger } from 'pino';
import type { App } from '../../app.js';
import { createOnePortListener, type OnePortListener } from './one-port-listener.js';

/** The app on its one port (REST, gRPC, TLS), with the listener settings of its configuration. */
export function createListenerFor(app: App, logger?: Logger): OnePortListener {
  const { server } = app.config;
  return createOnePortListener({
    handler: app.handler,
    onHttp2Stream: app.onHttp2Stream,
    onHttp2Session: app.onHttp2Session,
    tls: server.tls,
    requestTimeoutMs: server.requestTimeoutSeconds * 1000,
    maxConnectionsPerAddress: server.maxConnectionsPerAddress,
    ...(logger ? { logger } : {}),
  });
}

/**
 * Graceful shutdown on SIGTERM/SIGINT (or when `fail` is called): readiness turns 503 and streams
 * end with UNAVAILABLE, the listener stops accepting and lets in-flight requests finish (up to
 * Server:ShutdownTimeoutSeconds), the app releases everything, and the process exits.
 */
export function stopGracefully(app: App, listener: OnePortListener): { stop(reason: string, exitCode: number): void } {
  const { logger } = app;
  let stopping = false;
  const stop = (reason: string, exitCode: number): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    app.beginShutdown();
    listener
      .close({ timeoutMs: app.config.server.shutdownTimeoutSeconds * 1000 })
      .then(() => app.close())
      .then(
        () => {
          logger.info('stopped');
          process.exit(exitCode);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGINT', 0));
  return { stop };
}
