/** The change feed and hub, the gRPC service (native and Connect-ES), subscriptions and snapshots, who is connected. */
export { ConfigCalls } from './config-calls.js';
export { CredentialRechecks } from './credential-rechecks.js';
export { FleetQueries } from './fleet-queries.js';
export { fleetRoutes } from './fleet-routes.js';
export { createGrpcAuthorizer } from './grpc-authorizer.js';
export { createGrpcGateway } from './grpc-gateway.js';
export { StreamPresence } from './presence.js';
export { StreamAdmission } from './stream-admission.js';
export { Subscriptions } from './subscriptions.js';
export { reaches, audienceOf, type Audience } from './event-batch.js';
export { MAX_ID_CHARS } from './stream-client.js';
export { VersionSnapshots, type CurrentVersion } from './version-snapshots.js';
