import { VALUE_TYPE_NAMES } from '../../protocol.js';
import { Type } from 'typebox';

/**
 * The `valueType` field of every REST body and answer: the code of a value type, with each code's
 * name in the OpenAPI description, so a reader of `"valueType":6` learns it is Number.
 */
export const ValueTypeField = Type.Integer({
  minimum: 0,
  maximum: 8,
  description: `Value type code: ${Object.entries(VALUE_TYPE_NAMES)
    .map(([code, name]) => `${code} ${name}`)
    .join(', ')} (docs/value-types.md)`,
});
