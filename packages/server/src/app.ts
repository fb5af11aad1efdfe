import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  Http2ServerRequest,
  Http2ServerResponse,
  Http2Session,
  IncomingHttpHeaders,
  ServerHttp2Stream,
} from 'node:http2';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { openDatabase, type Database } from './db/database.js';
import { createUnitOfWork, type UnitOfWork } from './db/unit-of-work.js';
import { AuditQueries } from './features/audit/audit-queries.js';
import { auditRoutes } from './features/audit/audit-routes.js';
import { apiKeyRoutes } from './features/auth/api-key-routes.js';
import { ApiKeys } from './features/auth/api-keys.js';
import { authPlugin } from './features/auth/auth-plugin.js';
import { authRoutes, MeSchema } from './features/auth/auth-routes.js';
import { createDbSessionStore } from './features/auth/db-session-store.js';
import type { ClaimSettings } from './features/auth/identity.js';
import { createAuthProvider } from './features/auth/providers.js';
import { EntryCommands } from './features/entries/entry-commands.js';
import { EntryQueries } from './features/entries/entry-queries.js';
import { entryRoutes } from './features/entries/entry-routes.js';
import { createMetrics, type Metrics } from './features/ops/metrics.js';
import { opsRoutes } from './features/ops/ops-routes.js';
import { createLocalChangeFeed, type ChangeFeed } from './features/realtime/change-feed.js';
import { createChangeHub, type ChangeHub } from './features/realtime/change-hub.js';
import { createGrpcAuthorizer } from './features/realtime/grpc-authorizer.js';
import { createGrpcGateway } from './features/realtime/grpc-gateway.js';
import { createPostgresChangeFeed } from './features/realtime/pg-change-feed.js';
import { Subscriptions } from './features/realtime/subscriptions.js';
import { VersionSnapshots } from './features/realtime/version-snapshots.js';
import { VersionRegistration } from './features/versions/version-registration.js';
import { ServiceCommands } from './features/services/service-commands.js';
import { ServiceQueries } from './features/services/service-queries.js';
import { serviceRoutes } from './features/services/service-routes.js';
import { VersionCommands } from './features/versions/version-commands.js';
import { VersionQueries } from './features/versions/version-queries.js';
import { versionRoutes } from './features/versions/version-routes.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config/app-config.js';
import { randomIds, type IdGenerator } from './platform/ids.js';
import { installProblemDetails, problemFor, sendProblem } from './platform/http/problem-details.js';
import { rejectNulCharacters } from './platform/http/reject-nul.js';
import { ProblemDetailsSchema } from './platform/http/schemas.js';

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
  /** Claims the HTTP/2 streams served natively (gRPC StartSubscribe), before the request handler. */
  readonly onHttp2Stream: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;
  /** Keeps HTTP/2 connections checked with pings. */
  readonly onHttp2Session: (session: Http2Session) => void;
  readonly subscriptions: Subscriptions;
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
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Builds the whole service from its configuration. Never listens: main.ts and tests do that. */
export async function buildApp(config: AppConfig, deps: AppDependencies = {}): Promise<App> {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  const logger =
    deps.logger ??
    pino({
      level: config.logging.level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.password',
          '*.passwordHash',
        ],
        censor: '[redacted]',
      },
    });
  const metrics = createMetrics();
  const database = await openDatabase(config.database, {
    onQuery: ({ durationMs, failed }) =>
      metrics.dbQueryDuration.observe({ outcome: failed ? 'error' : 'ok' }, durationMs / 1000),
  });

  try {
    return await assemble(config, { clock, ids, logger, metrics, database });
  } catch (error) {
    await database.close();
    throw error;
  }
}

async function assemble(
  config: AppConfig,
  parts: { clock: Clock; ids: IdGenerator; logger: Logger; metrics: Metrics; database: Database },
): Promise<App> {
  const { clock, ids, logger, metrics, database } = parts;
  const hub = createChangeHub();
  const feed: ChangeFeed = config.database.url
    ? createPostgresChangeFeed({ url: config.database.url, database, hub, clock, logger })
    : createLocalChangeFeed(hub);
  hub.subscribeAll(() => metrics.changesReceived.inc());
  const uow = createUnitOfWork(database, feed);
  const claimSettings: ClaimSettings = {
    idClaimType: config.authentication.idClaimType,
    emailClaimType: config.authentication.emailClaimType,
    roleClaimType: config.authentication.roleClaimType,
    authorization: config.authorization,
  };

  const authProvider = createAuthProvider({ config, uow, database, clock, ids, logger, claimSettings });

  const fastify = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    genReqId: (req) => {
      const header = req.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false } },
    // Member ids may be e-mail addresses up to 320 characters.
    routerOptions: { maxParamLength: 512 },
    // Only the configured reverse proxies may tell us the client's protocol, host and address.
    trustProxy: config.server.trustProxy.length > 0 ? [...config.server.trustProxy] : false,
    // The router's own failures (a malformed %-escape, an over-long parameter) come here, not to the
    // error handler; they get problem details like everything else.
    frameworkErrors: (error, _request, reply) => {
      const code = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'URI_TOO_LONG' : 'INVALID_ARGUMENT';
      const detail = code === 'URI_TOO_LONG' ? 'A path segment is too long.' : 'The request URL is malformed.';
      void sendProblem(reply, problemFor(code, detail));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installProblemDetails(fastify);
  // Only JSON bodies (and, later, the SAML form posts): anything else answers 415.
  fastify.removeContentTypeParser('text/plain');
  fastify.addSchema(ProblemDetailsSchema);
  fastify.addSchema(MeSchema);

  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  fastify.addHook('preValidation', rejectNulCharacters);
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  await fastify.register(helmet, {
    global: true,
    // Plain HTTP is allowed for local development: only ask browsers to upgrade when we serve TLS.
    hsts: config.server.tls !== null,
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: config.server.tls !== null ? [] : null } },
  });
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Realtime Config management API',
        version: '1.0.0',
        description: 'Services, config versions, entries, members and audit logs. Errors are RFC 9457 problem details.',
      },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'rc_session' } } },
      security: [{ session: [] }],
    },
  });
  await fastify.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
  fastify.get('/api/openapi.json', { schema: { hide: true } }, async () => fastify.swagger());

  const sessionStore = createDbSessionStore(database.db, config.session.idleTimeoutMinutes * 60_000);
  await fastify.register(authPlugin, {
    authenticator: authProvider,
    sessionSecret: config.session.secret ?? (await sharedSessionSecret(database)),
    sessionStore,
    idleTimeoutMs: config.session.idleTimeoutMinutes * 60_000,
  });

  let shuttingDown = false;
  await fastify.register(opsRoutes, { metrics, ping: () => database.ping(), isShuttingDown: () => shuttingDown });
  await fastify.register(authRoutes, { authentication: config.authentication });
  await authProvider.registerRoutes(fastify);
  await fastify.register(serviceRoutes, {
    commands: new ServiceCommands(uow, clock, ids),
    queries: new ServiceQueries(uow),
  });
  await fastify.register(versionRoutes, {
    commands: new VersionCommands(uow, clock, ids),
    queries: new VersionQueries(uow),
  });
  await fastify.register(entryRoutes, { commands: new EntryCommands(uow, clock, ids), queries: new EntryQueries(uow) });
  await fastify.register(auditRoutes, { queries: new AuditQueries(uow) });
  const apiKeys = new ApiKeys(uow, clock, ids);
  await fastify.register(apiKeyRoutes, { apiKeys });
  // The web UI arrives in a later issue; until then the root points at the API documentation.
  fastify.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/api/docs'));

  await fastify.ready();

  await authProvider.start();

  const subscriptions = new Subscriptions(uow, hub, {
    onDelivered: (events) => metrics.eventsDelivered.inc(events),
    onDropped: () => metrics.subscribersDropped.inc(),
  });
  metrics.countOpenSubscriptionsWith(() => subscriptions.count);
  const snapshots = new VersionSnapshots(uow, hub);
  const grpc = createGrpcGateway({
    uow,
    snapshots,
    subscriptions,
    registration: new VersionRegistration(uow, clock, ids),
    logger,
    metrics,
    authorizer: createGrpcAuthorizer({
      required: config.grpc.requireAuthentication,
      apiKeys,
      verifyBearer: authProvider.verifyBearer?.bind(authProvider),
    }),
    keepAliveMs: config.grpc.keepAliveSeconds * 1000,
    maxBufferedBytes: MAX_BUFFERED_BYTES_PER_STREAM,
    // Fastify's router serves HTTP/2 compatibility requests as well as HTTP/1.1 ones.
    fallback: (req, res) => fastify.routing(req as IncomingMessage, res as ServerResponse),
  });

  // Started last: nothing listens before the app is built, and a failed build leaves no connection behind.
  await feed.start();

  const purgeTimer = setInterval(() => {
    sessionStore.purgeExpired().catch((err: unknown) => logger.warn({ err }, 'purging expired sessions failed'));
  }, SESSION_PURGE_INTERVAL_MS);
  purgeTimer.unref();

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
    beginShutdown: () => {
      shuttingDown = true;
      subscriptions.closeAll('The server is shutting down; reconnect.');
      grpc.shutdown();
    },
    async close() {
      shuttingDown = true;
      subscriptions.closeAll('The server is shutting down; reconnect.');
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
async function sharedSessionSecret(database: Database): Promise<string> {
  const candidate = randomBytes(48).toString('base64url');
  await database.db
    .insertInto('settings')
    .values({ key: 'session-secret', value: candidate })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await database.db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'session-secret')
    .executeTakeFirstOrThrow();
  return row.value;
}
