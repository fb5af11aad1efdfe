/**
 * Regions (docs/regions.md): what a follower does with writes. REST writes and sign-ins go to the
 * primary (or are refused) before anything runs here, CreateVersion likewise; the primary answers
 * forwarded requests with its WAL position, and the follower waits for its standby to replay it.
 */
export {
  CreateVersionForwarding,
  forwardedCallInterceptor,
  type CallCredentials,
} from './create-version-forwarding.js';
export { FORWARDED_BY_HEADER, type ForwardingOptions } from './primary-forwarding.js';
export { answerForwardedWrites, forwardWritesToPrimary } from './rest-forwarding.js';
