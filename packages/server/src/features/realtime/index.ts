/** The change feed and hub, the gRPC service (native and Connect-ES), subscriptions and snapshots. */
export { ConfigCalls } from './config-calls.js';
export { CredentialRechecks } from './credential-rechecks.js';
export { createGrpcAuthorizer } from './grpc-authorizer.js';
export { createGrpcGateway } from './grpc-gateway.js';
export { Subscriptions } from './subscriptions.js';
export { VersionSnapshots } from './version-snapshots.js';
