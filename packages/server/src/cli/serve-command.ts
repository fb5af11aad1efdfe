import { buildApp } from '../app.js';
import type { AppConfig } from '../platform/config/app-config.js';
import { createListenerFor, stopGracefully } from '../serve.js';

/**
 * Builds the app and listens at once, so health and readiness answer while the database is still
 * coming up; then connects to the database (retrying) and serves until SIGTERM/SIGINT.
 */
export async function serve(config: AppConfig): Promise<void> {
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
