import type { Logger } from 'pino';
import type { ChangeHub, Identity, UnitOfWork } from './core/index.js';
import type { BearerCredentials } from './features/auth/index.js';
import type { Metrics } from './features/ops/index.js';
import {
  ConfigCalls,
  createGrpcAuthorizer,
  createGrpcGateway,
  CredentialRechecks,
  StreamAdmission,
  Subscriptions,
  type StreamPresence,
  type VersionSnapshots,
} from './features/realtime/index.js';
import { CreateVersionForwarding, forwardedCallInterceptor, type ForwardingOptions } from './features/regions/index.js';
import { VersionRegistration } from './features/versions/index.js';
import type { Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config/app-config.js';
import type { IdGenerator } from './platform/ids.js';
import type { RequestDispatch } from './platform/server/request-dispatch.js';

/**
 * A subscriber whose stream has this much unsent data is too slow and is dropped (it reconnects and
 * resumes). Frames are shared by all subscribers of a version, so this bounds how far one falls
 * behind rather than what each costs; it must allow a burst of large values to wait behind a
 * client's HTTP/2 flow-control window (64 KiB by default in grpc-js).
 */
const MAX_BUFFERED_BYTES_PER_STREAM = 8 * 1024 * 1024;
/** How often open streams check that their credentials still stand: a revoked key ends them within this. */
const CREDENTIAL_RECHECK_MS = 2000;

export interface GrpcParts {
  readonly config: AppConfig;
  readonly uow: UnitOfWork;
  readonly hub: ChangeHub;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** API keys, personal access tokens and the provider's bearer tokens. */
  readonly bearer: BearerCredentials;
  /** The identity of a signed-in console session, from the Cookie header. */
  readonly sessionIdentity: (cookieHeader: string | undefined) => Promise<Identity | null>;
  readonly isStarted: () => boolean;
  /** Which protocol serves a request: the gRPC gateway registers here, before the REST API. */
  readonly dispatch: RequestDispatch;
  /** Who is connected: every stream opened here is registered there. */
  readonly presence: StreamPresence;
  /** A follower's writes (CreateVersion) go to the primary; the primary answers forwarded calls. */
  readonly forwarding: ForwardingOptions;
  /** GetConfig's in-memory versions, shared with OFREP (app-rest.ts). */
  readonly snapshots: VersionSnapshots;
}

/**
 * The gRPC service on the shared port (native HTTP/2, Connect-ES) with its change streams and
 * GetConfig snapshots: part of the composition root (app.ts).
 */
export function composeGrpc(parts: GrpcParts) {
  const { config, uow, hub, clock, ids, logger, metrics } = parts;
  const rechecks = new CredentialRechecks(CREDENTIAL_RECHECK_MS, logger);
  const admission = new StreamAdmission(
    {
      maxStreams: config.server.maxStreams,
      perConnection: config.server.maxStreamsPerConnection,
      perAddress: config.server.maxStreamsPerAddress,
    },
    (reason) => metrics.streamsRefused.inc({ reason }),
  );
  const subscriptions = new Subscriptions(uow, hub, {
    rechecks,
    presence: parts.presence,
    admission,
    metrics: {
      onDelivered: (events) => metrics.eventsDelivered.inc(events),
      onDropped: () => metrics.subscribersDropped.inc(),
    },
  });
  metrics.countOpenSubscriptionsWith(() => subscriptions.count);
  metrics.countConnectedInstancesWith(() => parts.presence.counts());
  const { snapshots } = parts;
  const authorizer = createGrpcAuthorizer({
    required: config.grpc.requireAuthentication,
    bearer: parts.bearer,
    sessionIdentity: parts.sessionIdentity,
  });
  const calls = new ConfigCalls({
    uow,
    snapshots,
    registration: new VersionRegistration(uow, clock, ids, config.versions),
    authorizer,
    isStarted: parts.isStarted,
    forwarding: new CreateVersionForwarding(parts.forwarding),
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
    interceptors: [forwardedCallInterceptor(parts.forwarding)],
  });
  parts.dispatch.register(grpc);
  return { grpc, subscriptions, snapshots, rechecks };
}
