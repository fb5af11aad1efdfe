import { valueTypeName } from '../../protocol.js';
import { Type } from 'typebox';
import { Nullable, Uuid } from '../../platform/http/schemas.js';
import type { PlanOutcome } from './entry-plans.js';

const Side = (description: string) =>
  Nullable(
    Type.Object(
      {
        id: Type.Optional(Uuid),
        value: Nullable(Type.String()),
        valueType: Type.Integer({ minimum: 0, maximum: 8 }),
        valueTypeName: Type.String(),
        generation: Type.Optional(Type.Integer()),
      },
      { description },
    ),
  );

/** The answer of a restore or an import: the changes (dry run or applied) and the token to apply them. */
export const PlanOutcomeSchema = Type.Object(
  {
    changes: Type.Array(
      Type.Object({
        key: Type.String(),
        action: Type.String({ description: 'set, create, delete, or recreate (the value type changes)' }),
        current: Side('The entry now (null when the key does not exist)'),
        next: Side('The entry after the change (null for a deletion)'),
      }),
    ),
    unchanged: Type.Integer({ description: 'Keys looked at that stay as they are' }),
    basedOn: Type.String({ description: 'Pass it back to apply exactly this: 409 if any key changed meanwhile' }),
    applied: Type.Boolean(),
  },
  { description: 'What a restore or an import changes (or changed)' },
);

export function planOutcomeOf(outcome: PlanOutcome) {
  return {
    ...outcome,
    changes: outcome.changes.map((c) => ({
      key: c.key,
      action: c.action,
      current: c.current && {
        id: c.current.id,
        value: c.current.rawValue,
        valueType: c.current.valueType,
        valueTypeName: valueTypeName(c.current.valueType),
        generation: c.current.generation,
      },
      next: c.next && {
        value: c.next.rawValue,
        valueType: c.next.valueType,
        valueTypeName: valueTypeName(c.next.valueType),
      },
    })),
  };
}
