/** Who is calling (users, API keys, anonymous SDKs) and what each may do to a service: one rule for REST and gRPC. */
export { actorOfCaller, ANONYMOUS_CLIENT, anonymousCaller, userCaller, type Caller } from './caller.js';
export { memberIdsOf, requireServiceAccess, type ServiceAction } from './service-access.js';
