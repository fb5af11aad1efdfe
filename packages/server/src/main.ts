import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './platform/config/load-config.js';
import { createListenerFor, stopGracefully } from './serve.js';

/**
 * Loads the configuration, builds the app and listens at once, so health and readiness answer
 * while the database is still coming up; then connects to the database (retrying) and serves.
 */
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
  const listener = createListenerFor(app, logger);
  const address = await listener.listen(config.server.port, config.server.host);
  logger.info(
    {
      port: address.port,
      host: address.host,
      tls: config.server.tls !== null,
      database: config.database.url ? 'postgres' : 'sqlite',
      provider: config.authentication.provider,
      environment: config.environment,
    },
    `Realtime Config listening on ${config.server.tls ? 'https' : 'http'}://${address.host}:${address.port}`,
  );
  const shutdown = stopGracefully(app, listener);
  app.start().then(
    () => logger.info('ready: connected to the database'),
    (error: unknown) => {
      logger.fatal(
        { err: error },
        `Realtime Config cannot start: ${error instanceof Error ? error.message : String(error)}`,
      );
      shutdown.stop('start failed', 1);
    },
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`Realtime Config failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
