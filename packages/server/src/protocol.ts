/**
 * The one door to the generated protocol code. It is imported from the protocol package's sources
 * by path, not by package name, so `tsc` compiles it into the server's own output and the packed
 * server installs without the private protocol package (docs/adr/0010-server-package.md, as the SDK
 * does in docs/adr/0008-sdk-carries-the-protocol.md).
 */
export * from '../../protocol/src/index.js';
