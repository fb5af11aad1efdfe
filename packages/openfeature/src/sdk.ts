/**
 * The one door to the SDK (`@realtime-config/client`, a workspace package no registry has) and the
 * protocol's value-type rules: imported from their sources by path, not by package name, so `tsc`
 * compiles them into this package's own output and the packed provider installs on its own, as the
 * CLI does (docs/adr/0008-sdk-carries-the-protocol.md).
 */
export {
  ConfigError,
  readVersion,
  watchVersion,
  type ConfigLogger,
  type WatchedChange,
} from '../../client/src/index.js';
export { typedValue, VALUE_TYPE_CODES } from '../../protocol/src/index.js';
