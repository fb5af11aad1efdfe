/**
 * `@realtime-config/client`: typed, live configuration for Node applications.
 *
 * Declare the configuration with {@link defineConfig} and the builders, {@link connect} to the
 * server, read `config.values`, and {@link LiveConfig.subscribe | subscribe} to changes. Tests use
 * {@link staticConfig}; tools that follow a version's raw values without a schema use {@link watchVersion}.
 *
 * @example
 * ```ts
 * import { connect, defineConfig, group, number } from '@realtime-config/client';
 *
 * const schema = defineConfig({ Http: group({ TimeoutSeconds: number({ default: 30 }) }) });
 * const config = await connect({ url: 'http://localhost:8080', serviceId, version: '1.0.0', schema });
 * console.log(config.values.Http.TimeoutSeconds);
 * ```
 * @packageDocumentation
 */
export type { ConnectOptions, ReadVersionOptions, WatchOptions, WatchStatus } from './client-options.js';
export { connect } from './connect.js';
export { ConfigError, type ConfigErrorCode, type ConfigErrorOptions } from './errors.js';
export type { ChangeListener, ConfigLogger, ConfigStatus, LiveConfig } from './live-config.js';
export {
  defineConfig,
  group,
  type ConfigChange,
  type ConfigKey,
  type ConfigOverrides,
  type ConfigSchema,
  type ConfigValues,
  type Fields,
  type Group,
  type GroupOptions,
  type Groups,
  type Setting,
  type ValueTypeName,
} from './schema.js';
export { array, boolean, dateTime, enumOf, json, number, string, timeSpan, type SettingOptions } from './settings.js';
export type { ArrayRules, JsonRules, JsonSchema, NumberRules, StringFormat, StringRules } from './rules.js';
export { nextDelay } from './reconnect.js';
export { readVersion, type VersionSnapshot } from './read-version.js';
export { staticConfig, type StaticConfig } from './static-config.js';
export { watchVersion, type WatchedChange } from './watch-version.js';
