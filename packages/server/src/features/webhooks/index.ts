/**
 * Webhooks: signed HTTP deliveries (Standard Webhooks) of a service's committed changes. The outbox
 * writes them in the change's own transaction; the dispatcher sends them after the commit.
 */
export { WebhookDispatcher } from './webhook-dispatcher.js';
export { SHARED_CACHE_MILLIS, WebhookFilterCache } from './webhook-filter-cache.js';
export { WebhookOutbox } from './webhook-outbox.js';
export { webhookRoutes } from './webhook-routes.js';
export { WebhookSender } from './webhook-sender.js';
export { Webhooks } from './webhooks.js';
// The URL rules, the private-network guard, the signature, the secret and the REST body fields of
// webhooks, which validators share.
export { EndpointDescription, endpointUrl, newSigningSecret, signingSecret } from './endpoints.js';
export { signedHeaders } from './webhook-sender.js';
export { auditedOrigin, guardedLookup, refusedLiteralHost, requireAllowedTarget } from './webhook-targets.js';
