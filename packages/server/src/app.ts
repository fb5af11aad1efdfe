import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Logger } from 'pino';
import { composeGrpc } from './app-grpc.js';
import { createInstanceRole } from './app-regions.js';
import { composeRestApi } from './app-rest.js';
import { checkedWrites, createChangeHub, type ChangeHub, type SecretKeys, type UnitOfWork } from './core/index.js';
import { loadSecretKeys } from './secret-keys.js';
import { openDatabase, type Database } from './db/database.js';
import { createUnitOfWork } from './db/unit-of-work.js';
import { createAuthProvider, createSessionIdentityReader, type ClaimSettings } from './features/auth/index.js';
import { createMetrics, type Metrics } from './features/ops/index.js';
import {
  SHARED_CACHE_MILLIS,
  WebhookDispatcher,
  WebhookFilterCache,
  WebhookOutbox,
  WebhookSender,
} from './features/webhooks/index.js';
import { StreamPresence, VersionSnapshots } from './features/realtime/index.js';
import { RolloutCommands, RolloutScheduler } from './features/rollouts/index.js';
import { HttpValidatorCalls } from './features/validators/index.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config/app-config.js';
import { AppError } from './platform/errors.js';
import { randomIds, type IdGenerator } from './platform/ids.js';
import { createLogger } from './platform/logging.js';
import type { RequestHandler } from './platform/server/inner-servers.js';
import { RequestDispatch } from './platform/server/request-dispatch.js';
import { retryWithBackoff } from './platform/startup.js';

export interface AppDependencies {
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
}

export interface App {
  readonly config: AppConfig;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Serves one request of any transport; what the one-port listener calls. */
  readonly handler: RequestHandler;
  /** Claims the HTTP/2 streams served natively (gRPC), before the request handler. */
  readonly onHttp2Stream: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;
  /** Keeps HTTP/2 connections checked with pings. */
  readonly onHttp2Session: (session: Http2Session) => void;
  /** True once `start` has finished: the database answered, the schema is current, the feed listens. */
  readonly started: boolean;
  /** Change streams open on this instance (every protocol). */
  readonly openStreams: number;
  /** The OpenAPI document of the REST API. */
  openApiDocument(): unknown;
  /**
   * Connects to the database (migrations, the master key check, the session secret, seeding, the
   * change feed), retrying
   * with back-off while it cannot be reached; until then every route but health, readiness and
   * metrics answers 503, and gRPC UNAVAILABLE. Rejects on any other failure (a provider's metadata
   * that cannot be read, a migration that fails, values sealed by a master key that is not
   * configured): the server must not run half-configured.
   */
  start(): Promise<void>;
  /**
   * The first step of shutting down, before the listener closes: readiness turns 503 and open change
   * streams end with UNAVAILABLE so their clients reconnect to another instance. Idempotent.
   */
  drain(): void;
  /** Drains (if not yet done) and releases everything the app holds; call after the listener has closed. */
  close(): Promise<void>;
}

/** The parts below the app's surface, for the tests that inspect or prod the storage directly. */
export interface AppInternals {
  readonly database: Database;
  readonly hub: ChangeHub;
  readonly uow: UnitOfWork;
}

const SESSION_PURGE_INTERVAL_MS = 10 * 60 * 1000;
const SHUTTING_DOWN = 'The server is shutting down; reconnect.';
/** The streams of a version read per look for a rollout's receivers (docs/rollouts.md). */
const MAX_WATCHED_STREAMS = 20_000;

/**
 * Builds the whole service from its configuration: the composition root, where every part is made
 * and wired. It neither listens (main.ts and tests do) nor talks to the database (`start` does).
 */
export async function buildApp(config: AppConfig, deps: AppDependencies = {}): Promise<App> {
  return (await composeApp(config, deps)).app;
}

/** `buildApp`, with the internals tests reach into. */
export async function composeApp(
  config: AppConfig,
  deps: AppDependencies = {},
): Promise<{ app: App; internals: AppInternals }> {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  const logger = deps.logger ?? createLogger(config.logging.level);
  // What the configuration's sources hold that is ignored: another tool's section, a variable that looks like ours.
  for (const warning of config.warnings) logger.warn(`configuration: ${warning}`);
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

  const secretKeys = loadSecretKeys(config, logger);
  const hub = createChangeHub();
  hub.subscribeAll(() => metrics.changesReceived.inc());
  // Primary or follower (docs/regions.md): which change feed receives, whether anything is written.
  const role = createInstanceRole({ config, database, hub, clock, logger, cipher: secretKeys });
  metrics.followReplicationWith(() => ({ follower: role.follower, lagSeconds: role.lagSeconds }));
  // SQLite: this process is the only writer, its cache exact. PostgreSQL: other instances write too.
  const webhookFilters = new WebhookFilterCache(config.database.url ? SHARED_CACHE_MILLIS : null);
  const outbox = new WebhookOutbox(clock, ids, secretKeys, webhookFilters);
  // Every write of values is asked about by its service's validators before it commits (docs/validation.md).
  const validatorCalls = new HttpValidatorCalls({
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    timeoutSeconds: config.validation.timeoutSeconds,
    cipher: secretKeys,
    clock,
  });
  const uow = checkedWrites(
    createUnitOfWork(database, role.feed, secretKeys, outbox, () => role.follower),
    validatorCalls,
    ids,
  );
  const dispatcher = new WebhookDispatcher(
    uow,
    new WebhookSender(config.webhooks.allowPrivateNetworks),
    clock,
    logger,
    config.webhooks.retrySchedule,
    // SQLite is the embedded database of one process; PostgreSQL may be shared by several.
    !config.database.url,
  );
  outbox.onCommitted(() => dispatcher.wake());
  const claimSettings: ClaimSettings = {
    idClaimType: config.authentication.idClaimType,
    emailClaimType: config.authentication.emailClaimType,
    roleClaimType: config.authentication.roleClaimType,
    authorization: config.authorization,
  };
  const authProvider = createAuthProvider({ config, uow, clock, ids, logger, claimSettings });
  const serverInstance = `${hostname().slice(0, 60)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const presence = new StreamPresence({
    serverInstance,
    clock,
    // With SQLite there is one server instance: its streams are all there are.
    store: config.database.url ? uow.read.presence : null,
    logger,
    readOnly: () => role.follower,
  });
  const forwarding = { role, positions: role.positions, serverInstance, logger };
  // Rollouts (docs/rollouts.md): every instance moves the due ones; each move locks its rollout.
  const rollouts = new RolloutCommands(uow, clock, ids, config.versions);
  const rolloutScheduler = new RolloutScheduler(uow, rollouts, clock, {
    ...config.rollouts,
    connected: (versionId) => presence.members(versionId, MAX_WATCHED_STREAMS),
    closedSince: (versionId, since) => presence.closedSince(versionId, since),
    readOnly: () => role.follower || !lifecycle.started || lifecycle.shuttingDown,
    logger,
  });
  // GetConfig's in-memory versions: the gRPC calls and OFREP answer from them.
  const snapshots = new VersionSnapshots(uow, hub, { layout: config.grpc.getConfigLayout });

  const rest = await composeRestApi({
    config,
    uow,
    clock,
    ids,
    logger,
    metrics,
    authProvider,
    claimSettings,
    wakeWebhooks: () => dispatcher.wake(),
    webhookFilters,
    isStarted: () => lifecycle.started,
    readiness: () =>
      lifecycle.shuttingDown ? 'shutting-down' : lifecycle.started ? 'started' : 'waiting-for-database',
    ping: () => database.ping(),
    cipher: secretKeys,
    presence,
    forwarding,
    validatorCalls,
    snapshots,
    rollouts,
    lagging: () =>
      role.follower && role.lagSeconds >= config.database.maxFollowerLagSeconds
        ? `This follower's standby is ${role.lagSeconds.toFixed(1)} s behind its primary (Database:MaxFollowerLagSeconds is ${config.database.maxFollowerLagSeconds}).`
        : null,
  });
  const { fastify, sessionStore, signer, yamlWorkers } = rest;
  // Fastify's router serves HTTP/2 compatibility requests as well as HTTP/1.1 ones: whatever no
  // other protocol claims (the REST API, the console).
  const dispatch = new RequestDispatch((req, res) => fastify.routing(req as IncomingMessage, res as ServerResponse));
  const { grpc, subscriptions, rechecks } = composeGrpc({
    config,
    uow,
    hub,
    clock,
    ids,
    logger,
    metrics,
    bearer: rest.bearer,
    sessionIdentity: createSessionIdentityReader(fastify, authProvider),
    isStarted: () => lifecycle.started,
    dispatch,
    presence,
    forwarding,
    snapshots,
  });

  if (!config.grpc.requireAuthentication) {
    logger.warn(
      'gRPC accepts calls without credentials (Grpc:RequireAuthentication is false): anyone who reaches this port can read every value and register versions. Set it to true and give clients API keys, or keep the port behind a network boundary.',
    );
  }

  const purgeTimer = setInterval(() => {
    // A follower's standby is purged by replication of the primary's purge.
    if (!lifecycle.started || uow.readOnly) return;
    sessionStore.purgeExpired().catch((err: unknown) => logger.warn({ err }, 'purging expired sessions failed'));
  }, SESSION_PURGE_INTERVAL_MS);
  purgeTimer.unref();

  /** Everything that needs the database, in order; run again from the top after a connection failure. */
  const connectToDatabase = async (): Promise<void> => {
    await role.detect();
    const { newer } = await role.migrate();
    if (newer.length > 0) {
      logger.warn(
        { migrations: newer },
        'The database was migrated by a newer release; this instance keeps using the schema it knows until it is replaced.',
      );
    }
    // First: a database sealed by a key that is not configured stops the start here (no key is made).
    await secretKeys.load(uow.read.settings);
    const sharedSecret = await sharedSessionSecret(uow, secretKeys);
    signer.setSecret(config.session.secret ?? sharedSecret);
    if (secretKeys.ready && !role.follower) {
      // Signing secrets stored in plaintext (before a master key, or by an older release) get sealed.
      const sealed = await uow.write(
        async (ctx) => (await ctx.webhooks.sealSecrets(false)) + (await ctx.validators.sealSecrets(false)),
      );
      if (sealed > 0) logger.info({ sealed }, 'sealed webhook and validator signing secrets stored in plaintext');
    }
    await authProvider.start();
    await role.start();
    presence.start();
  };
  let starting: Promise<void> | undefined;

  const drain = (): void => {
    lifecycle.shuttingDown = true;
    subscriptions.closeAll(SHUTTING_DOWN);
    grpc.shutdown();
  };

  const app: App = {
    config,
    metrics,
    logger,
    handler: dispatch.handler,
    onHttp2Stream: dispatch.onHttp2Stream,
    onHttp2Session: dispatch.onHttp2Session,
    get started() {
      return lifecycle.started;
    },
    get openStreams() {
      return subscriptions.count;
    },
    openApiDocument: () => fastify.swagger(),
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
        dispatcher.start();
        rolloutScheduler.start();
      });
      return starting;
    },
    drain,
    async close() {
      drain();
      stopStarting.abort();
      await starting?.catch(() => undefined);
      await dispatcher.stop();
      await rolloutScheduler.stop();
      await validatorCalls.close();
      rechecks.close();
      snapshots.close();
      await presence.stop();
      await authProvider.close();
      clearInterval(purgeTimer);
      await fastify.close();
      await yamlWorkers.close();
      await yamlWorkers.close();
      await role.close();
      await database.close();
    },
  };
  return { app, internals: { database, hub, uow } };
}

/**
 * Without Session:Secret, the cookie-signing secret is made once and kept in the database, so every
 * instance on the same database signs and checks cookies alike and restarts keep sessions valid. It
 * is sealed by the master key like a secret value (docs/secrets.md); it is read (and a plaintext one
 * replaced) even when Session:Secret overrides it, so no start leaves one in plaintext beside a key.
 */
function sharedSessionSecret(uow: UnitOfWork, secretKeys: SecretKeys): Promise<string> {
  return secretKeys.sealedSetting(uow.read.settings, 'session-secret', () => randomBytes(48).toString('base64url'));
}
