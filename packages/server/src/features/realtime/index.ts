/** The change feed and hub, the gRPC service (native and Connect-ES), subscriptions and snapshots. */
export { createLocalChangeFeed, type ChangeFeed } from './change-feed.js';
export { createChangeHub, entryChangeOf, type ChangeHub, type ChangeNotice, type EntryChange } from './change-hub.js';
export { ConfigCalls } from './config-calls.js';
export { CredentialRechecks } from './credential-rechecks.js';
export { versionDeletionNotice } from './deletion-notice.js';
export { createGrpcAuthorizer } from './grpc-authorizer.js';
export { createGrpcGateway } from './grpc-gateway.js';
export { CHANGE_CHANNEL, createPostgresChangeFeed } from './pg-change-feed.js';
export { Subscriptions } from './subscriptions.js';
export { VersionSnapshots } from './version-snapshots.js';
