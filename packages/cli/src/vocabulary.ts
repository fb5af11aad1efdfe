/**
 * The words the console and docs/concepts.md use for permissions, roles and scopes, from the protocol
 * package's one vocabulary. Imported by path, like the SDK (src/sdk.ts): tsc compiles the file (plain
 * data, no imports) into this package, which ships without the private protocol package.
 */
export { policyWords } from '../../protocol/src/vocabulary.js';
