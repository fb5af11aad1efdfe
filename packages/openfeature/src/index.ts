/**
 * `@realtime-config/openfeature`: an OpenFeature server provider for `@openfeature/server-sdk` 1.x,
 * evaluating a version's entries as flags on the SDK's live connection.
 *
 * @example
 * ```ts
 * import { OpenFeature } from '@openfeature/server-sdk';
 * import { RealtimeConfigProvider } from '@realtime-config/openfeature';
 *
 * await OpenFeature.setProviderAndWait(new RealtimeConfigProvider({ url, serviceId, version: '1.0.0', apiKey }));
 * const enabled = await OpenFeature.getClient().getBooleanValue('Features:NewCheckout', false);
 * ```
 * @packageDocumentation
 */
export { FLAG_TYPE_OF } from './flag-values.js';
export { RealtimeConfigProvider, type RealtimeConfigProviderOptions } from './provider.js';
