/**
 * The one door to the SDK (`@realtime-config/client`, a workspace package no registry has): imported
 * from its sources by path, not by package name, so `tsc` compiles it (and the protocol code it
 * carries) into the CLI's own output and the packed CLI installs on its own, as the SDK does with
 * the protocol (docs/adr/0008-sdk-carries-the-protocol.md).
 */
export { ConfigError, watchVersion, type WatchedChange } from '../../client/src/index.js';
