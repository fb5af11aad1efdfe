import {
  ErrorCode,
  OpenFeatureEventEmitter,
  ProviderEvents,
  StandardResolutionReasons,
  type EvaluationContext,
  type FlagValue,
  type FlagValueType,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import { ContextFlags, OfrepFailure, type OfrepFlag } from './context-flags.js';
import { failed, resolveEntry, typedResolution } from './flag-values.js';
import { readVersion, watchVersion, type ConfigLogger, type WatchedChange } from './sdk.js';

/** Options of {@link RealtimeConfigProvider}; the first three are required. */
export interface RealtimeConfigProviderOptions {
  /** The server (gRPC, REST and OFREP share its port): `http://host:8080` or `https://…`. */
  readonly url: string;
  /** The id (UUID) of the service whose version the flags are. */
  readonly serviceId: string;
  /** The version label whose entries are the flags, e.g. `'1.0.0'`. */
  readonly version: string;
  /**
   * An API key of the service (`rck_…`) with the `read` scope: the live connection and the OFREP
   * calls of contexts with a `targetingKey` use it. Add `secrets` to evaluate secret entries.
   */
  readonly apiKey?: string;
  /** Labels of this process (targeting of the provider's own values, docs/targeting.md), sent as `x-rc-labels`. */
  readonly labels?: Readonly<Record<string, string>>;
  /** How this process is named among the version's instances. @default `<hostname>:<pid>` */
  readonly instanceId?: string;
  /** Milliseconds between reconnect attempts of the live connection. @default 5000 */
  readonly pollingInterval?: number;
  /** Where the connection's warnings go. @default console.warn */
  readonly logger?: ConfigLogger;
}

const hasTargetingKey = (context: EvaluationContext): boolean =>
  typeof context.targetingKey === 'string' && context.targetingKey !== '';

/** A flag of an OFREP answer as OpenFeature's resolution of the type the caller asked for. */
function resolveOfrep<T extends FlagValue>(
  flagKey: string,
  requested: FlagValueType,
  defaultValue: T,
  flag: OfrepFlag | undefined,
): ResolutionDetails<T> {
  if (!flag) return failed(defaultValue, ErrorCode.FLAG_NOT_FOUND, `No flag "${flagKey}" in this version.`);
  if (flag.errorCode) {
    const known = (Object.values(ErrorCode) as string[]).includes(flag.errorCode);
    return failed(defaultValue, known ? (flag.errorCode as ErrorCode) : ErrorCode.GENERAL, flag.errorDetails ?? '');
  }
  const found = { reason: flag.reason, variant: flag.variant, flagMetadata: flag.metadata };
  if (!('value' in flag)) return { ...found, value: defaultValue, reason: StandardResolutionReasons.DEFAULT };
  return typedResolution(flagKey, requested, defaultValue, flag.value, found);
}

/**
 * An OpenFeature server provider for `@openfeature/server-sdk` on the SDK's live connection: the
 * version's entries are loaded once and kept current by the change stream, so evaluation is in
 * process, with no request per flag. A context with a `targetingKey` is evaluated by the server
 * (OFREP's bulk call, once per context, cached with its ETag and asked again after each change).
 *
 * Events: PROVIDER_READY once the snapshot is loaded, PROVIDER_CONFIGURATION_CHANGED with
 * `flagsChanged` for each applied change, PROVIDER_STALE while the connection is lost (READY again
 * when it is back), PROVIDER_ERROR when it cannot start or the version goes away.
 */
export class RealtimeConfigProvider implements Provider {
  readonly metadata = { name: 'realtime-config' } as const;
  readonly runsOn = 'server' as const;
  readonly events = new OpenFeatureEventEmitter();
  private readonly entries = new Map<string, WatchedChange>();
  private versionId = '';
  private readonly stop = new AbortController();
  private readonly contexts: ContextFlags;

  constructor(private readonly options: RealtimeConfigProviderOptions) {
    this.contexts = new ContextFlags({
      url: String(options.url).replace(/\/+$/, ''),
      version: options.version,
      apiKey: options.apiKey,
    });
  }

  private get connection() {
    const { url, serviceId, apiKey, labels, instanceId, logger } = this.options;
    return { url, serviceId, apiKey, labels, instanceId, logger, signal: this.stop.signal };
  }

  /** Loads the version's snapshot (READY when it resolves, ERROR when it rejects), then follows its changes. */
  async initialize(): Promise<void> {
    const snapshot = await readVersion({ ...this.connection, version: this.options.version });
    this.versionId = snapshot.versionId;
    let newest = 0;
    for (const entry of snapshot.entries) {
      this.entries.set(entry.key, entry);
      newest = Math.max(newest, entry.timestampMicros);
    }
    void this.follow(newest);
  }

  async onClose(): Promise<void> {
    this.stop.abort();
    this.contexts.clear();
  }

  /** The stream from the snapshot on: a change seen twice (the snapshot's last millisecond) counts once. */
  private async follow(newestMicros: number): Promise<void> {
    let stale = false;
    try {
      const changes = watchVersion({
        ...this.connection,
        versionId: this.versionId,
        since: newestMicros > 0 ? new Date(Math.floor(newestMicros / 1000)) : undefined,
        pollingInterval: this.options.pollingInterval,
        onStatus: (status, cause) => {
          if (status === 'reconnecting' && !stale) {
            stale = true;
            this.events.emit(ProviderEvents.Stale, { message: cause?.message ?? 'the connection was lost' });
          } else if (status === 'live' && stale) {
            stale = false;
            this.events.emit(ProviderEvents.Ready);
          }
        },
      });
      for await (const batch of changes) {
        const flagsChanged = this.apply(batch);
        this.contexts.invalidate();
        if (flagsChanged.length > 0) this.events.emit(ProviderEvents.ConfigurationChanged, { flagsChanged });
      }
    } catch (error) {
      if (!this.stop.signal.aborted) {
        this.events.emit(ProviderEvents.Error, { message: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  private apply(batch: readonly WatchedChange[]): string[] {
    const changed = new Set<string>();
    for (const change of batch) {
      const known = this.entries.get(change.key);
      if (known && known.generation === change.generation && known.value === change.value) continue;
      this.entries.set(change.key, change);
      changed.add(change.key);
    }
    return [...changed];
  }

  private async resolve<T extends FlagValue>(
    flagKey: string,
    requested: FlagValueType,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    if (!hasTargetingKey(context)) {
      return resolveEntry(flagKey, requested, defaultValue, this.entries.get(flagKey), this.versionId);
    }
    try {
      return resolveOfrep(flagKey, requested, defaultValue, (await this.contexts.flagsFor(context)).get(flagKey));
    } catch (error) {
      const code = error instanceof OfrepFailure ? error.errorCode : ErrorCode.GENERAL;
      return failed(defaultValue, code, error instanceof Error ? error.message : String(error));
    }
  }

  resolveBooleanEvaluation(flagKey: string, defaultValue: boolean, context: EvaluationContext) {
    return this.resolve(flagKey, 'boolean', defaultValue, context);
  }

  resolveStringEvaluation(flagKey: string, defaultValue: string, context: EvaluationContext) {
    return this.resolve(flagKey, 'string', defaultValue, context);
  }

  resolveNumberEvaluation(flagKey: string, defaultValue: number, context: EvaluationContext) {
    return this.resolve(flagKey, 'number', defaultValue, context);
  }

  resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T, context: EvaluationContext) {
    return this.resolve(flagKey, 'object', defaultValue, context);
  }
}
