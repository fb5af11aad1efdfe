import type { Logger } from 'pino';
import type { App } from './app.js';
import { createOnePortListener, type OnePortListener } from './platform/server/one-port-listener.js';
import { defaultMaxConnections, raiseOpenFileLimit } from './platform/server/open-file-limit.js';

/**
 * The app on its one port (REST, gRPC, TLS), with the listener settings of its configuration.
 * Raises the open-file limit first: the default connection limit is derived from it.
 */
export function createListenerFor(app: App, logger: Logger = app.logger): OnePortListener {
  const { server } = app.config;
  const fileLimit = raiseOpenFileLimit(process.pid, logger);
  const maxConnections = server.maxConnections > 0 ? server.maxConnections : defaultMaxConnections(fileLimit);
  if (fileLimit && maxConnections >= fileLimit.soft) {
    logger.warn(
      { maxConnections, openFileLimit: fileLimit.soft },
      'Server:MaxConnections is not below the open-file limit: connections can exhaust the descriptors before the limit applies',
    );
  }
  logger.info({ maxConnections, openFileLimit: fileLimit?.soft ?? null }, 'connection limit');
  const { metrics } = app;
  const listener = createOnePortListener({
    handler: app.handler,
    onHttp2Stream: app.onHttp2Stream,
    onHttp2Session: app.onHttp2Session,
    tls: server.tls,
    requestTimeoutMs: server.requestTimeoutSeconds * 1000,
    idleTimeoutMs: server.idleTimeoutSeconds * 1000,
    maxConnections,
    maxConnectionsPerAddress: server.maxConnectionsPerAddress,
    onConnectionShed: ({ action, reason }) =>
      (action === 'evicted' ? metrics.connectionsEvicted : metrics.connectionsRejected).inc({ reason }),
    logger,
  });
  metrics.countOpenConnectionsWith(() => listener.openConnections);
  return listener;
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
    app.drain();
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
