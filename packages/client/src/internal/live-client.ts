import { ConfigError } from '../errors.js';
import type { ConfigStatus } from '../live-config.js';
import { CacheWriter, openSecrets, protectSecrets, readCache, type CachedSnapshot } from './cache-file.js';
import { registerAndLoad, remoteEntryOf, subscribeEvents, type LoadedVersion } from './calls.js';
import { ConfigState, type Applied, type RemoteEntry, type ValueChange } from './config-state.js';
import { Listeners } from './listeners.js';
import type { ResolvedOptions } from './options.js';
import { isPermanent, Rpc } from './rpc.js';
import { delayAfter } from '../reconnect.js';
import { sleep } from './sleep.js';

type Values = Readonly<Record<string, unknown>>;

/**
 * The LiveConfig behind `connect`: registration and snapshot, then the change stream, reconnected
 * after `pollingInterval` from the last timestamp seen, for as long as it is open. Everything it
 * owns (connection, timers, listeners) is its own; nothing is shared between clients.
 */
export class LiveClient {
  private readonly state: ConfigState;
  private readonly rpc: Rpc;
  private readonly cache: CacheWriter | undefined;
  private readonly closer = new AbortController();
  private readonly changeListeners: Listeners<[Values, readonly ValueChange[]]>;
  private readonly statusListeners: Listeners<[ConfigStatus]>;
  private readonly errorListeners: Listeners<[ConfigError]>;
  private readonly warnedMissing = new Set<string>();
  /** Keys declared `secret: true`: never in the cache file in plaintext. */
  private readonly secretKeys: ReadonlySet<string>;
  private warnedUncachedSecrets = false;
  private currentStatus: ConfigStatus = 'offline';
  private currentVersionId = '';
  private lastReported: string | undefined;
  /** Reconnect attempts in a row that did not open the stream (the wait grows with it). */
  private failedAttempts = 0;
  private loop: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private readonly onAbort = (): void => void this.close();

  constructor(private readonly options: ResolvedOptions) {
    this.state = new ConfigState(options.schema);
    this.secretKeys = new Set(this.state.plan.settings.filter((s) => s.setting.secret).map((s) => s.key));
    this.rpc = new Rpc(options);
    const listenerFailed = (error: unknown): void =>
      options.logger.error(
        `realtime-config: a listener threw: ${error instanceof Error ? error.stack : String(error)}`,
      );
    this.changeListeners = new Listeners(listenerFailed);
    this.statusListeners = new Listeners(listenerFailed);
    this.errorListeners = new Listeners(listenerFailed);
    this.cache =
      options.cacheFile === undefined
        ? undefined
        : new CacheWriter(options.cacheFile, (error) =>
            this.report(new ConfigError('CACHE', `writing the cache file failed: ${String(error)}`, { cause: error })),
          );
  }

  get values(): Values {
    return this.state.values;
  }

  get status(): ConfigStatus {
    return this.currentStatus;
  }

  get versionId(): string {
    return this.currentVersionId;
  }

  subscribe(listener: (values: Values, changes: readonly ValueChange[]) => unknown): () => void {
    return this.changeListeners.add(listener);
  }

  on(event: 'status' | 'error', listener: (arg: never) => unknown): () => void {
    if (event === 'status') return this.statusListeners.add(listener as (status: ConfigStatus) => unknown);
    if (event === 'error') return this.errorListeners.add(listener as (error: ConfigError) => unknown);
    throw new ConfigError('INVALID_ARGUMENT', `on(): unknown event ${JSON.stringify(event)} (use 'status' or 'error')`);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closer.abort();
      this.options.signal?.removeEventListener('abort', this.onAbort);
      await this.loop;
      this.rpc.close();
      await this.cache?.flush();
      this.setStatus('closed');
      this.changeListeners.clear();
      this.statusListeners.clear();
      this.errorListeners.clear();
    })();
    return this.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** What `connect` awaits: the snapshot from the server, or from the cache file when the server is out of reach. */
  async start(): Promise<void> {
    const { signal, startupTimeout } = this.options;
    if (signal?.aborted) return this.abandon(signal.reason);
    signal?.addEventListener('abort', this.onAbort, { once: true });
    // Not AbortSignal.any([closer, AbortSignal.timeout()]): Node may garbage-collect such a timeout
    // signal before it fires, and connect would then wait forever.
    const startup = new AbortController();
    const timer = setTimeout(() => startup.abort(), startupTimeout);
    const stop = (): void => startup.abort();
    this.closer.signal.addEventListener('abort', stop, { once: true });
    try {
      return await this.startWithin(startup.signal);
    } finally {
      clearTimeout(timer);
      this.closer.signal.removeEventListener('abort', stop);
    }
  }

  private async startWithin(deadline: AbortSignal): Promise<void> {
    const { signal, startupTimeout, cacheFile, logger, url, serviceId, version } = this.options;
    const attempts: string[] = [];
    let failure: ConfigError | undefined;
    while (!deadline.aborted) {
      try {
        this.useVersion(await registerAndLoad(this.rpc, this.options, this.state.plan, deadline), false);
        await this.cache?.flush(); // once connect resolves, the cache file exists
        this.currentStatus = 'live';
        this.loop = this.follow();
        return;
      } catch (error) {
        if (this.closer.signal.aborted) return this.abandon(signal?.reason);
        const attempt = error instanceof ConfigError ? error : new ConfigError('INTERNAL', String(error));
        const timedOut = deadline.aborted; // the attempt was cut short by startupTimeout
        attempts.push(timedOut ? `an attempt still running after ${startupTimeout} ms` : attempt.message);
        if (!timedOut) failure = attempt;
        if (isPermanent(attempt)) break;
        const wait = delayAfter(attempt.retryAfterMs, attempts.length, this.options.pollingInterval, Math.random);
        await sleep(wait, deadline);
      }
    }
    if (this.closer.signal.aborted) return this.abandon(signal?.reason);
    failure ??= new ConfigError('UNAVAILABLE', `${url} did not answer within ${startupTimeout} ms`);
    const cached = cacheFile === undefined ? undefined : await readCache(cacheFile, this.options);
    if (this.closer.signal.aborted) return this.abandon(signal?.reason);
    if (cached && 'snapshot' in cached) {
      logger.warn(`realtime-config: starting offline from ${cacheFile}: ${failure.message}`);
      this.restore(cached.snapshot);
      this.lastReported = failure.message;
      this.loop = this.follow();
      return;
    }
    await this.close();
    const tried = attempts.map((a, i) => `  ${i + 1}. ${a}`).join('\n');
    const why = isPermanent(failure) ? `the server refused (${failure.code})` : `no answer within ${startupTimeout} ms`;
    const fallback = cached ? cached.problem : 'no cacheFile is set';
    throw new ConfigError(
      failure.code,
      `connect(): could not load service ${serviceId} version "${version}" from ${url}: ${why}, and ${fallback}. ` +
        `Tried:\n${tried}`,
      { cause: failure },
    );
  }

  private async abandon(reason: unknown): Promise<never> {
    await this.close();
    throw new ConfigError('ABORTED', 'connect(): aborted by options.signal', { cause: reason });
  }

  /** The change stream for as long as the client is open: reconnect after `pollingInterval` (jittered), from the last timestamp. */
  private async follow(): Promise<void> {
    const signal = this.closer.signal;
    let register = false;
    while (!signal.aborted) {
      let retryAfterMs: number | undefined;
      try {
        if (register) {
          this.useVersion(await registerAndLoad(this.rpc, this.options, this.state.plan, signal), true);
          register = false;
        }
        const request = { ...this.options, versionId: this.currentVersionId, after: this.state.lastTimestamp };
        for await (const event of subscribeEvents(this.rpc, request, signal, () => this.onOpen())) {
          this.onEvent(event.events.map(remoteEntryOf));
        }
        this.onLost(
          new ConfigError('UNAVAILABLE', `StartSubscribe at ${this.options.url}: the server ended the stream`),
        );
      } catch (error) {
        if (signal.aborted) break;
        const lost =
          error instanceof ConfigError ? error : new ConfigError('INTERNAL', String(error), { cause: error });
        // The version is gone (deleted): register again after the wait, as a restarted application would.
        if (lost.code === 'NOT_FOUND') register = true;
        retryAfterMs = lost.retryAfterMs;
        this.onLost(lost);
      }
      this.failedAttempts++;
      await sleep(delayAfter(retryAfterMs, this.failedAttempts, this.options.pollingInterval, Math.random), signal);
      if (!signal.aborted) this.options.logger.debug(`realtime-config: reconnecting to ${this.options.url}`);
    }
  }

  private onOpen(): void {
    this.lastReported = undefined;
    this.failedAttempts = 0;
    if (this.currentStatus === 'live') return;
    this.options.logger.info(`realtime-config: live (version ${this.currentVersionId})`);
    this.setStatus('live');
  }

  private onLost(error: ConfigError): void {
    if (this.currentStatus === 'live') this.setStatus('reconnecting');
    // One report per outage and cause, not one per attempt.
    if (error.message !== this.lastReported) {
      this.lastReported = error.message;
      this.report(error);
    }
  }

  private onEvent(entries: readonly RemoteEntry[]): void {
    const before = this.state.lastTimestamp;
    this.publish(this.state.apply(entries), before !== this.state.lastTimestamp);
  }

  /** Takes over a registered version and its snapshot (at start, or after the version was deleted). */
  private useVersion(loaded: LoadedVersion, notify: boolean): void {
    this.currentVersionId = loaded.versionId;
    const applied = this.state.reset(loaded.entries);
    const missing = applied.missing.filter((key) => !this.warnedMissing.has(key));
    if (missing.length > 0) {
      for (const key of missing) this.warnedMissing.add(key);
      this.options.logger.warn(
        `realtime-config: version "${this.options.version}" has no ${missing.join(', ')}: reading the declared ` +
          'default. An existing version is reused as it is; register a new version label to add keys.',
      );
    }
    if (loaded.created) this.options.logger.info(`realtime-config: registered version "${this.options.version}"`);
    this.publish(notify ? applied : { changes: [], problems: applied.problems }, true);
  }

  private restore(snapshot: CachedSnapshot): void {
    this.currentVersionId = snapshot.versionId;
    const applied = this.state.reset(
      openSecrets(snapshot.entries, this.options.cacheKey),
      snapshot.lastTimestamp ?? undefined,
    );
    for (const problem of applied.problems) this.report(problem);
  }

  private publish(applied: Applied, save: boolean): void {
    for (const problem of applied.problems) this.report(problem);
    if (applied.changes.length > 0) this.changeListeners.emit(this.state.values, applied.changes);
    if (save && this.cache) {
      const { entries, leftOut } = protectSecrets(this.state.entries, this.secretKeys, this.options.cacheKey);
      if (leftOut > 0 && !this.warnedUncachedSecrets) {
        this.warnedUncachedSecrets = true;
        this.options.logger.warn(
          'realtime-config: secret values are left out of the cache file (no cacheKey); starting offline, they read their defaults',
        );
      }
      this.cache.save({
        serviceId: this.options.serviceId,
        version: this.options.version,
        versionId: this.currentVersionId,
        lastTimestamp: this.state.lastTimestamp ?? null,
        entries,
      });
    }
  }

  private report(error: ConfigError): void {
    this.options.logger.warn(`realtime-config: ${error.message}`);
    this.errorListeners.emit(error);
  }

  private setStatus(status: ConfigStatus): void {
    if (status === this.currentStatus) return;
    this.currentStatus = status;
    this.statusListeners.emit(status);
  }
}
