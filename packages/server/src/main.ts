import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './platform/config/load-config.js';
import { createOnePortListener } from './platform/server/one-port-listener.js';

/** Loads the configuration, builds the app, listens on one port and shuts down gracefully. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd() });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const app = await buildApp(config);
  const { logger } = app;
  const listener = createOnePortListener({
    handler: app.handler,
    onHttp2Stream: app.onHttp2Stream,
    onHttp2Session: app.onHttp2Session,
    tls: config.server.tls,
    logger,
  });
  const address = await listener.listen(config.server.port, config.server.host);
  logger.info(
    {
      port: address.port,
      host: address.host,
      tls: config.server.tls !== null,
      database: app.database.dialect,
      provider: config.authentication.provider,
      environment: config.environment,
    },
    `Realtime Config listening on ${config.server.tls ? 'https' : 'http'}://${address.host}:${address.port}`,
  );

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app.beginShutdown();
    const timeoutMs = config.server.shutdownTimeoutSeconds * 1000;
    listener
      .close({ timeoutMs })
      .then(() => app.close())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Realtime Config failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
