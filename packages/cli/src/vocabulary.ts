/**
 * The words the console and docs/concepts.md use for permissions and audit actions, from the protocol
 * package's one vocabulary. Imported by path, like the SDK (src/sdk.ts): tsc compiles the file (plain
 * data, no imports) into this package, which ships without the private protocol package.
 */
export { actionWords, policyWords } from '../../protocol/src/vocabulary.js';
