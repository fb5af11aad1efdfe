import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { requireServiceAccess, type SecretCipher, type UnitOfWork, type ValidatorCalls } from './core/index.js';
import { AuditQueries, auditRoutes } from './features/audit/index.js';
import {
  ApiKeys,
  apiKeyRoutes,
  authPlugin,
  authRoutes,
  createBearerCredentials,
  createSessionStoreAdapter,
  DeferredSigner,
  MeSchema,
  createCurrentIdentities,
  PersonalTokens,
  tokenRoutes,
  type AuthProvider,
  type ClaimSettings,
} from './features/auth/index.js';
import { ChangeRequestCommands, ChangeRequestQueries, changeRequestRoutes } from './features/change-requests/index.js';
import {
  EntryCommands,
  EntryPlans,
  EntryQueries,
  entryRoutes,
  SecretCommands,
  secretRoutes,
} from './features/entries/index.js';
import { EntryHistory, historyRoutes } from './features/history/index.js';
import { FlagEvaluations, ofrepRoutes } from './features/openfeature/index.js';
import { opsRoutes, type Metrics } from './features/ops/index.js';
import { answerForwardedWrites, forwardWritesToPrimary, type ForwardingOptions } from './features/regions/index.js';
import { FleetQueries, fleetRoutes, type StreamPresence, type VersionSnapshots } from './features/realtime/index.js';
import { rolloutRoutes, type RolloutCommands } from './features/rollouts/index.js';
import { ServiceCommands, ServiceQueries, serviceRoutes } from './features/services/index.js';
import { ConfigTransfer, createYamlWorkers, transferRoutes, VersionCompare } from './features/transfer/index.js';
import { VersionCommands, VersionQueries, versionRoutes } from './features/versions/index.js';
import { validatorRoutes, Validators } from './features/validators/index.js';
import { webConsole } from './features/web-console/index.js';
import { webhookRoutes, Webhooks, type WebhookFilterCache } from './features/webhooks/index.js';
import type { Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config/app-config.js';
import { createHttpApp } from './platform/http/http-app.js';
import type { IdGenerator } from './platform/ids.js';

export interface RestApiParts {
  readonly config: AppConfig;
  readonly uow: UnitOfWork;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly authProvider: AuthProvider;
  readonly claimSettings: ClaimSettings;
  /** Tells the webhook dispatcher a delivery is due now (a redelivery). */
  readonly wakeWebhooks: () => void;
  /** Which webhooks each service has, as the outbox caches it. */
  readonly webhookFilters: WebhookFilterCache;
  readonly isStarted: () => boolean;
  readonly readiness: () => 'waiting-for-database' | 'started' | 'shutting-down';
  readonly ping: () => Promise<void>;
  /** Rollouts (docs/rollouts.md): shared with their scheduler. */
  readonly rollouts: RolloutCommands;
  /** Seals and fingerprints secret values. */
  readonly cipher: SecretCipher;
  /** The open change streams of every server instance (the instances route). */
  readonly presence: StreamPresence;
  /** A follower's writes go to the primary; the primary answers forwarded requests (docs/regions.md). */
  readonly forwarding: ForwardingOptions;
  /** Why a follower is too far behind to take traffic (readiness); null while it is not. */
  readonly lagging: () => string | null;
  /** Asks a service's validators about a dry run (writes are asked through `uow`). */
  readonly validatorCalls: ValidatorCalls;
  /** GetConfig's in-memory versions, which OFREP evaluates from. */
  readonly snapshots: VersionSnapshots;
}

/**
 * The REST API, the sign-in routes, the operations endpoints and the console on one Fastify app:
 * part of the composition root (app.ts), where each feature's commands and queries are made.
 */
export async function composeRestApi(parts: RestApiParts) {
  const { config, uow, clock, ids, logger, metrics, authProvider } = parts;
  const fastify: FastifyInstance = await createHttpApp({
    logger,
    trustProxy: config.server.trustProxy,
    tls: config.server.tls !== null,
    isStarted: parts.isStarted,
    onResponse: (labels, seconds) => {
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe({ method: labels.method, route: labels.route }, seconds);
    },
  });
  fastify.addSchema(MeSchema);
  // Before the auth plugin: a follower forwards writes before sessions or credentials are read here.
  await fastify.register(forwardWritesToPrimary, parts.forwarding);

  const idleTimeoutMs = config.session.idleTimeoutMinutes * 60_000;
  const sessionStore = createSessionStoreAdapter(uow, idleTimeoutMs);
  const signer = new DeferredSigner();
  const apiKeys = new ApiKeys(uow, clock, ids);
  const identities = createCurrentIdentities(parts.claimSettings);
  const tokens = new PersonalTokens(uow, clock, ids, { maxLifetimeDays: config.tokens.maxLifetimeDays, identities });
  const bearer = createBearerCredentials({
    apiKeys,
    tokens,
    verifyBearer: authProvider.verifyBearer?.bind(authProvider),
  });
  await fastify.register(authPlugin, {
    authenticator: authProvider,
    signer,
    sessionStore,
    idleTimeoutMs,
    bearer,
    serviceAccess: (caller, serviceId, action) => requireServiceAccess(uow.read, caller, serviceId, action),
    readOnly: () => uow.readOnly,
  });
  // After it: the WAL position of an answer is taken once the session has been saved.
  await fastify.register(answerForwardedWrites, parts.forwarding);
  await fastify.register(opsRoutes, {
    metrics,
    ping: parts.ping,
    readiness: parts.readiness,
    lagging: parts.lagging,
  });
  await fastify.register(authRoutes, { authentication: config.authentication, role: parts.forwarding.role });
  await authProvider.registerRoutes(fastify);
  await fastify.register(serviceRoutes, {
    commands: new ServiceCommands(uow, clock, ids, {
      membersAreLocalUsers: config.authentication.provider === 'Local',
    }),
    queries: new ServiceQueries(uow),
  });
  const caps = config.versions;
  await fastify.register(versionRoutes, {
    commands: new VersionCommands(uow, clock, ids, caps),
    queries: new VersionQueries(uow),
  });
  await fastify.register(entryRoutes, {
    commands: new EntryCommands(uow, clock, ids, caps),
    queries: new EntryQueries(uow),
    cipher: parts.cipher,
  });
  await fastify.register(secretRoutes, { commands: new SecretCommands(uow, parts.cipher) });
  const plans = new EntryPlans(uow, clock, ids, caps, parts.validatorCalls);
  await fastify.register(historyRoutes, { history: new EntryHistory(uow), plans, cipher: parts.cipher });
  const yamlWorkers = createYamlWorkers();
  await fastify.register(transferRoutes, {
    transfer: new ConfigTransfer(uow, plans, clock, caps, yamlWorkers, parts.cipher),
    compare: new VersionCompare(uow),
    caps,
    cipher: parts.cipher,
  });
  await fastify.register(changeRequestRoutes, {
    commands: new ChangeRequestCommands(uow, clock, ids, {
      requiredApprovals: config.versions.requiredApprovals,
      caps,
      cipher: parts.cipher,
      identities,
      rollouts: parts.rollouts,
    }),
    queries: new ChangeRequestQueries(uow),
    requiredApprovals: config.versions.requiredApprovals,
    cipher: parts.cipher,
  });
  await fastify.register(rolloutRoutes, { commands: parts.rollouts, uow });
  await fastify.register(fleetRoutes, { queries: new FleetQueries(uow, parts.presence) });
  await fastify.register(auditRoutes, { queries: new AuditQueries(uow), cipher: parts.cipher });
  await fastify.register(apiKeyRoutes, { apiKeys });
  await fastify.register(webhookRoutes, {
    webhooks: new Webhooks(uow, clock, ids, {
      allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
      wake: parts.wakeWebhooks,
      filters: parts.webhookFilters,
    }),
  });
  await fastify.register(validatorRoutes, {
    validators: new Validators(uow, clock, ids, { allowPrivateNetworks: config.webhooks.allowPrivateNetworks }),
  });
  await fastify.register(ofrepRoutes, {
    prefix: '/ofrep/v1',
    evaluations: new FlagEvaluations(uow, parts.snapshots),
    allowedOrigins: config.ofrep.allowedOrigins,
  });
  await fastify.register(tokenRoutes, { tokens, maxLifetimeDays: config.tokens.maxLifetimeDays });
  await fastify.register(webConsole, { config });
  await fastify.ready();
  return { fastify, sessionStore, signer, bearer, yamlWorkers };
}
