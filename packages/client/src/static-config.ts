import { ConfigError } from './errors.js';
import { shown } from './internal/codecs.js';
import { ConfigState, type RemoteEntry } from './internal/config-state.js';
import { Listeners } from './internal/listeners.js';
import type { ConfigStatus, LiveConfig } from './live-config.js';
import type { ConfigOverrides, ConfigSchema } from './schema.js';

/**
 * A {@link LiveConfig} with no server, for tests; `update` plays a change to the subscribers.
 * @example
 * ```ts
 * const config: StaticConfig<typeof schema> = staticConfig(schema);
 * config.update({ Payments: { TimeoutSeconds: 1 } });
 * ```
 */
export interface StaticConfig<S extends ConfigSchema> extends LiveConfig<S> {
  /**
   * Applies typed values as if they had arrived from the server: `values` is replaced and every
   * `subscribe` listener is called once with the keys whose value changed. `null` reverts a key to
   * its default.
   */
  update(overrides: ConfigOverrides<S>): void;
}

function entriesOf(state: ConfigState, overrides: unknown, timestamp: number): RemoteEntry[] {
  const entries: RemoteEntry[] = [];
  const walk = (node: unknown, path: readonly string[]): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw new ConfigError('INVALID_ARGUMENT', `staticConfig(): ${path.join(':') || 'overrides'} must be an object`);
    }
    for (const [name, value] of Object.entries(node)) {
      const key = [...path, name].join(':');
      const planned = state.plan.byKey.get(key);
      if (planned) {
        let raw: string | null = null;
        try {
          raw = value === null || value === undefined ? null : planned.setting.format(value);
          if (raw !== null) planned.setting.parse(raw);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new ConfigError('INVALID_ARGUMENT', `staticConfig(): ${key}: ${shown(value)} ${reason}`, {
            key,
            cause: error,
          });
        }
        entries.push({ key, value: raw, timestamp });
      } else if (state.plan.settings.some((s) => s.key.startsWith(`${key}:`))) {
        walk(value, [...path, name]);
      } else {
        throw new ConfigError('INVALID_ARGUMENT', `staticConfig(): the schema has no ${key}`, { key });
      }
    }
  };
  walk(overrides, []);
  return entries;
}

/**
 * The read interface of {@link connect} with no server, for the application's unit tests: the
 * schema's defaults with `overrides` on top. Status is `offline` until closed; `update` plays
 * changes to the subscribers.
 *
 * @example
 * ```ts
 * const config = staticConfig(schema, { Payments: { TimeoutSeconds: 99 } });
 * config.values.Payments.TimeoutSeconds; // 99
 * config.update({ Payments: { Mode: 'Live' } }); // subscribers are called
 * ```
 * @throws ConfigError (`INVALID_ARGUMENT`) when an override names no key of the schema or does not
 * fit its type.
 */
export function staticConfig<S extends ConfigSchema>(schema: S, overrides?: ConfigOverrides<S>): StaticConfig<S> {
  if ((schema as { kind?: unknown } | undefined)?.kind !== 'config') {
    throw new ConfigError('INVALID_ARGUMENT', 'staticConfig(): the schema must be made with defineConfig()');
  }
  const state = new ConfigState(schema);
  let clock = 1;
  const applied = state.apply(entriesOf(state, overrides ?? {}, clock++));
  if (applied.problems[0]) throw applied.problems[0];
  const logFailure = (error: unknown): void => console.error('realtime-config: a listener threw:', error);
  const changeListeners = new Listeners<[unknown, unknown]>(logFailure);
  const statusListeners = new Listeners<[ConfigStatus]>(logFailure);
  let status: ConfigStatus = 'offline';
  const close = (): Promise<void> => {
    if (status !== 'closed') {
      status = 'closed';
      statusListeners.emit(status);
      changeListeners.clear();
      statusListeners.clear();
    }
    return Promise.resolve();
  };
  const config = {
    get values() {
      return state.values;
    },
    get status() {
      return status;
    },
    versionId: '',
    subscribe: (listener: (values: unknown, changes: unknown) => unknown) => changeListeners.add(listener),
    on(event: string, listener: (arg: never) => unknown) {
      if (event === 'status') return statusListeners.add(listener as (status: ConfigStatus) => unknown);
      if (event === 'error') return () => undefined; // a static configuration has no remote values to fail
      throw new ConfigError(
        'INVALID_ARGUMENT',
        `on(): unknown event ${JSON.stringify(event)} (use 'status' or 'error')`,
      );
    },
    update(next: unknown) {
      if (status === 'closed') return;
      const { changes } = state.apply(entriesOf(state, next, clock++));
      if (changes.length > 0) changeListeners.emit(state.values, changes);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return config as unknown as StaticConfig<S>;
}
