import { MAX_KEY_LENGTH, MAX_RAW_VALUE_LENGTH } from '../../protocol.js';

/**
 * Size limits of an entry's fields, the same for the REST API and for versions
 * registered over gRPC (CreateVersion), in characters (Unicode code points). The key's and the raw
 * value's are those of the shared value rules (`checkKey`, `checkValue`).
 */
export const ENTRY_LIMITS = {
  key: MAX_KEY_LENGTH,
  name: 200,
  rawValue: MAX_RAW_VALUE_LENGTH,
  enumDefinition: 4000,
  description: 4000,
  groupName: 200,
  groupDescription: 4000,
} as const;
