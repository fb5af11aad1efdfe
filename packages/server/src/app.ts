import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  Http2ServerRequest,
  Http2ServerResponse,
  Http2Session,
  IncomingHttpHeaders,
  ServerHttp2Stream,
} from 'node:http2';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openDatabase, type Database } from './db/database.js';
import { createUnitOfWork, type UnitOfWork } from './db/unit-of-work.js';
import { AuditQueries, auditRoutes } from './features/audit/index.js';
import {
  ApiKeys,
  apiKeyRoutes,
  authPlugin,
  authRoutes,
  createAuthProvider,
  createDbSessionStore,
  createSessionIdentityReader,
  DeferredSigner,
  MeSchema,
  type ClaimSettings,
} from './features/auth/index.js';
import { EntryCommands, EntryPlans, EntryQueries, entryRoutes } from './features/entries/index.js';
import { EntryHistory, historyRoutes } from './features/history/index.js';
import { createMetrics, opsRoutes, type Metrics } from './features/ops/index.js';
import {
  ConfigCalls,
  createChangeHub,
  CredentialRechecks,
  createGrpcAuthorizer,
  createGrpcGateway,
  createLocalChangeFeed,
  createPostgresChangeFeed,
  Subscriptions,
  VersionSnapshots,
  type ChangeFeed,
  type ChangeHub,
} from './features/realtime/index.js';
import { ServiceCommands, ServiceQueries, serviceRoutes } from './features/services/index.js';
import { ConfigTransfer, transferRoutes, VersionCompare } from './features/transfer/index.js';
import { VersionCommands, VersionQueries, VersionRegistration, versionRoutes } from './features/versions/index.js';
import { webConsole } from './features/web-console/index.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config/app-config.js';
import { AppError } from './platform/errors.js';
import { createHttpApp } from './platform/http/http-app.js';
import { randomIds, type IdGenerator } from './platform/ids.js';
import { createLogger } from './platform/logging.js';
import { retryWithBackoff } from './platform/startup.js';

export type RequestHandler = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

export interface AppDependencies {
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
}

export interface App {
  readonly config: AppConfig;
  readonly fastify: FastifyInstance;
  readonly database: Database;
  readonly hub: ChangeHub;
  readonly uow: UnitOfWork;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Serves one request of any transport; what the one-port listener calls. */
  readonly handler: RequestHandler;
  /** Claims the HTTP/2 streams served natively (gRPC), before the request handler. */
  readonly onHttp2Stream: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;
  /** Keeps HTTP/2 connections checked with pings. */
  readonly onHttp2Session: (session: Http2Session) => void;
  readonly subscriptions: Subscriptions;
  /** True once `start` has finished: the database answered, the schema is current, the feed listens. */
  readonly started: boolean;
  /**
   * Connects to the database (migrations, the session secret, seeding, the change feed), retrying
   * with back-off while it cannot be reached; until then every route but health, readiness and
   * metrics answers 503, and gRPC UNAVAILABLE. Rejects on any other failure (a provider's metadata
   * that cannot be read, a migration that fails): the server must not run half-configured.
   */
  start(): Promise<void>;
  /**
   * Starts draining before the listener closes: readiness turns 503 and open change streams end with
   * UNAVAILABLE so their clients reconnect to another instance.
   */
  beginShutdown(): void;
  /** Releases everything the app holds; call after the listener has closed. */
  close(): Promise<void>;
}

/**
 * A subscriber whose stream has this much unsent data is too slow and is dropped (it reconnects and
 * resumes). Frames are shared by all subscribers of a version, so this bounds how far one falls
 * behind rather than what each costs; it must allow a burst of large values to wait behind a
 * client's HTTP/2 flow-control window (64 KiB by default in grpc-js).
 */
const MAX_BUFFERED_BYTES_PER_STREAM = 8 * 1024 * 1024;
const SESSION_PURGE_INTERVAL_MS = 10 * 60 * 1000;
/** How often open streams check that their credentials still stand: a revoked key ends them within this. */
const CREDENTIAL_RECHECK_MS = 2000;
const SHUTTING_DOWN = 'The server is shutting down; reconnect.';

/**
 * Builds the whole service from its configuration: the composition root, where every part is made
 * and wired. It neither listens (main.ts and tests do) nor talks to the database (`start` does).
 */
export async function buildApp(config: AppConfig, deps: AppDependencies = {}): Promise<App> {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  const logger = deps.logger ?? createLogger(config.logging.level);
  const metrics = createMetrics();
  const database = openDatabase(config.database, {
    onQuery: ({ durationMs, failed }) =>
      metrics.dbQueryDuration.observe({ outcome: failed ? 'error' : 'ok' }, durationMs / 1000),
    // Only what identifies the failure: a pg error carries its client, with the connection settings.
    onConnectionError: (err) =>
      logger.warn(
        { error: { message: err.message, code: (err as { code?: unknown }).code } },
        'a database connection broke; the next query opens another',
      ),
  });
  const lifecycle = { started: false, shuttingDown: false };
  const stopStarting = new AbortController();

  const hub = createChangeHub();
  hub.subscribeAll(() => metrics.changesReceived.inc());
  const feed: ChangeFeed = config.database.url
    ? createPostgresChangeFeed({ url: config.database.url, db: database.db, hub, clock, logger })
    : createLocalChangeFeed(hub);
  const uow = createUnitOfWork(database, feed);
  const claimSettings: ClaimSettings = {
    idClaimType: config.authentication.idClaimType,
    emailClaimType: config.authentication.emailClaimType,
    roleClaimType: config.authentication.roleClaimType,
    authorization: config.authorization,
  };
  const authProvider = createAuthProvider({ config, uow, database, clock, ids, logger, claimSettings });

  const fastify = await createHttpApp({
    logger,
    trustProxy: config.server.trustProxy,
    tls: config.server.tls !== null,
    isStarted: () => lifecycle.started,
    onResponse: (labels, seconds) => {
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe({ method: labels.method, route: labels.route }, seconds);
    },
  });
  fastify.addSchema(MeSchema);

  const sessionStore = createDbSessionStore(database.db, config.session.idleTimeoutMinutes * 60_000);
  const signer = new DeferredSigner();
  await fastify.register(authPlugin, {
    authenticator: authProvider,
    signer,
    sessionStore,
    idleTimeoutMs: config.session.idleTimeoutMinutes * 60_000,
  });
  await fastify.register(opsRoutes, {
    metrics,
    ping: () => database.ping(),
    readiness: () =>
      lifecycle.shuttingDown ? 'shutting-down' : lifecycle.started ? 'started' : 'waiting-for-database',
  });
  await fastify.register(authRoutes, { authentication: config.authentication });
  await authProvider.registerRoutes(fastify);
  await fastify.register(serviceRoutes, {
    commands: new ServiceCommands(uow, clock, ids, {
      membersAreLocalUsers: config.authentication.provider === 'Local',
    }),
    queries: new ServiceQueries(uow),
  });
  await fastify.register(versionRoutes, {
    commands: new VersionCommands(uow, clock, ids),
    queries: new VersionQueries(uow),
  });
  await fastify.register(entryRoutes, { commands: new EntryCommands(uow, clock, ids), queries: new EntryQueries(uow) });
  const plans = new EntryPlans(uow, clock, ids);
  await fastify.register(historyRoutes, { history: new EntryHistory(uow), plans });
  await fastify.register(transferRoutes, {
    transfer: new ConfigTransfer(uow, plans, clock),
    compare: new VersionCompare(uow),
  });
  await fastify.register(auditRoutes, { queries: new AuditQueries(uow) });
  const apiKeys = new ApiKeys(uow, clock, ids);
  await fastify.register(apiKeyRoutes, { apiKeys });
  await fastify.register(webConsole, { config });
  await fastify.ready();

  const rechecks = new CredentialRechecks(CREDENTIAL_RECHECK_MS, logger);
  const subscriptions = new Subscriptions(uow, hub, {
    rechecks,
    metrics: {
      onDelivered: (events) => metrics.eventsDelivered.inc(events),
      onDropped: () => metrics.subscribersDropped.inc(),
    },
  });
  metrics.countOpenSubscriptionsWith(() => subscriptions.count);
  const snapshots = new VersionSnapshots(uow, hub, { layout: config.grpc.getConfigLayout });
  const authorizer = createGrpcAuthorizer({
    required: config.grpc.requireAuthentication,
    apiKeys,
    verifyBearer: authProvider.verifyBearer?.bind(authProvider),
    sessionIdentity: createSessionIdentityReader(fastify, authProvider),
  });
  const calls = new ConfigCalls({
    uow,
    snapshots,
    registration: new VersionRegistration(uow, clock, ids),
    authorizer,
    isStarted: () => lifecycle.started,
  });
  const grpc = createGrpcGateway({
    calls,
    subscriptions,
    logger,
    metrics,
    keepAliveMs: config.grpc.keepAliveSeconds * 1000,
    maxBufferedBytes: MAX_BUFFERED_BYTES_PER_STREAM,
    maxReceiveMessageBytes: config.grpc.maxReceiveMessageBytes,
    requireCredentials: (credentials) => authorizer.requirePresent(credentials),
    getConfigLayout: config.grpc.getConfigLayout,
    // Fastify's router serves HTTP/2 compatibility requests as well as HTTP/1.1 ones.
    fallback: (req, res) => fastify.routing(req as IncomingMessage, res as ServerResponse),
  });

  if (!config.grpc.requireAuthentication) {
    logger.warn(
      'gRPC accepts calls without credentials (Grpc:RequireAuthentication is false): anyone who reaches this port can read every value and register versions. Set it to true and give clients API keys, or keep the port behind a network boundary.',
    );
  }

  const purgeTimer = setInterval(() => {
    if (!lifecycle.started) return;
    sessionStore.purgeExpired().catch((err: unknown) => logger.warn({ err }, 'purging expired sessions failed'));
  }, SESSION_PURGE_INTERVAL_MS);
  purgeTimer.unref();

  /** Everything that needs the database, in order; run again from the top after a connection failure. */
  const connectToDatabase = async (): Promise<void> => {
    const { newer } = await database.migrate();
    if (newer.length > 0) {
      logger.warn(
        { migrations: newer },
        'The database was migrated by a newer release; this instance keeps using the schema it knows until it is replaced.',
      );
    }
    signer.setSecret(config.session.secret ?? (await sharedSessionSecret(uow)));
    await authProvider.start();
    await feed.start();
  };
  let starting: Promise<void> | undefined;

  return {
    config,
    fastify,
    database,
    hub,
    uow,
    metrics,
    logger,
    subscriptions,
    handler: grpc.handler,
    onHttp2Stream: grpc.onHttp2Stream,
    onHttp2Session: grpc.onHttp2Session,
    get started() {
      return lifecycle.started;
    },
    start() {
      starting ??= retryWithBackoff(connectToDatabase, {
        // Failures of the database (translated to UNAVAILABLE by the storage layer) are retried;
        // anything else (an identity provider's metadata, a failed migration) stops the start.
        retryable: (error) => error instanceof AppError && error.code === 'UNAVAILABLE',
        signal: stopStarting.signal,
        onRetry: (err, attempt, delayMs) =>
          logger.warn({ err, attempt, retryInMs: delayMs }, 'the database does not answer yet; retrying'),
      }).then(() => {
        lifecycle.started = true;
      });
      return starting;
    },
    beginShutdown: () => {
      lifecycle.shuttingDown = true;
      subscriptions.closeAll(SHUTTING_DOWN);
      grpc.shutdown();
    },
    async close() {
      lifecycle.shuttingDown = true;
      stopStarting.abort();
      await starting?.catch(() => undefined);
      subscriptions.closeAll(SHUTTING_DOWN);
      rechecks.close();
      grpc.shutdown();
      snapshots.close();
      await authProvider.close();
      clearInterval(purgeTimer);
      await fastify.close();
      await feed.close();
      await database.close();
    },
  };
}

/**
 * Without Session:Secret, the cookie-signing secret is made once and kept in the database, so every
 * instance on the same database signs and checks cookies alike and restarts keep sessions valid.
 */
function sharedSessionSecret(uow: UnitOfWork): Promise<string> {
  return uow.read.settings.getOrCreate('session-secret', randomBytes(48).toString('base64url'));
}
