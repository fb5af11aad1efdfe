import { LiveClient } from './internal/live-client.js';
import type { ConnectOptions } from './client-options.js';
import { resolveOptions } from './internal/options.js';
import type { LiveConfig } from './live-config.js';
import type { ConfigSchema } from './schema.js';

/**
 * Connects an application to its configuration: registers the schema as version `version` of the
 * service (IsVersionExists, then CreateVersion only for a new label), loads the snapshot
 * (GetConfig) and keeps the change stream (StartSubscribe) open. Resolves once the snapshot is
 * applied; from then on `values` follows every change, in order, across reconnects.
 *
 * It never fails because of a remote value: one that does not parse keeps the last good value and
 * is reported. When the server cannot be reached within `startupTimeout` it resolves from
 * `cacheFile` (status `offline`) and catches up when the server is back.
 *
 * @example
 * ```ts
 * import { connect, defineConfig, group, number, string } from '@realtime-config/client';
 *
 * const schema = defineConfig({
 *   Payments: group({ Provider: string({ default: 'Stripe' }), TimeoutSeconds: number({ default: 30 }) }),
 * });
 * const config = await connect({ url: 'http://localhost:8080', serviceId, version: '1.0.0', schema });
 * config.values.Payments.TimeoutSeconds; // number
 * config.subscribe((values) => console.log('timeout is now', values.Payments.TimeoutSeconds));
 * ```
 * @throws ConfigError `INVALID_ARGUMENT` for a bad option; `UNAVAILABLE` (or the server's refusal:
 * `UNAUTHENTICATED`, `PERMISSION_DENIED`, `NOT_FOUND`) when the server cannot serve the snapshot
 * and there is no cache; `ABORTED` when `signal` aborts first.
 */
export async function connect<S extends ConfigSchema>(options: ConnectOptions<S>): Promise<LiveConfig<S>> {
  const client = new LiveClient(resolveOptions(options));
  await client.start();
  return client as unknown as LiveConfig<S>;
}
