import type { ReadVersionOptions } from './client-options.js';
import { ConfigError } from './errors.js';
import { getConfigWireEntries } from './internal/calls.js';
import { resolveReadOptions } from './internal/options.js';
import { callError, Rpc } from './internal/rpc.js';
import { watchedChangeOf, type WatchedChange } from './watch-version.js';

/** A version's current values as {@link readVersion} reads them. */
export interface VersionSnapshot {
  /** The version's id: what {@link watchVersion} follows. */
  readonly versionId: string;
  /** Every live entry (secret ones only for a key with the `secrets` scope), by key. */
  readonly entries: readonly WatchedChange[];
}

/**
 * Reads a version's current raw values once, by label, without a schema and without registering
 * anything (IsVersionExists, then GetConfig): with {@link watchVersion} from the newest
 * `timestampMicros` on, a tool or bridge follows the version as a whole (the OpenFeature provider
 * is built so).
 *
 * @example
 * ```ts
 * import { readVersion } from '@realtime-config/client';
 *
 * const { versionId, entries } = await readVersion({ url: 'http://localhost:8080', serviceId, version: '1.0.0' });
 * ```
 * @throws ConfigError `NOT_FOUND` when the service has no version with that label, `UNAUTHENTICATED`,
 * `PERMISSION_DENIED`, `UNAVAILABLE` when the server cannot be reached, `INVALID_ARGUMENT` for a bad option.
 */
export async function readVersion(options: ReadVersionOptions): Promise<VersionSnapshot> {
  const resolved = resolveReadOptions(options);
  const rpc = new Rpc(resolved);
  const signal = resolved.signal ?? new AbortController().signal;
  const request = { serviceId: resolved.serviceId, version: resolved.version };
  const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await rpc.withFreshToken(run);
    } catch (error) {
      throw callError(error, `${what} at ${resolved.url}`);
    }
  };
  try {
    const found = await call('IsVersionExists', () => rpc.client.isVersionExists(request, { signal }));
    if (found.versionId === undefined) {
      throw new ConfigError('NOT_FOUND', `The service has no version "${resolved.version}" at ${resolved.url}`);
    }
    const wire = await call('GetConfig', () => getConfigWireEntries(rpc, request, signal));
    const entries = wire.map((e) => watchedChangeOf(e, 0));
    return { versionId: found.versionId, entries };
  } finally {
    rpc.close();
  }
}
