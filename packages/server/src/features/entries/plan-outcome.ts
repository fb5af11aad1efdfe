import { valueTypeName } from '../../protocol.js';
import { Type } from 'typebox';
import { valueAnswer, type SecretCipher } from '../../core/index.js';
import { Nullable, Uuid } from '../../platform/http/schemas.js';
import type { PlanOutcome } from './entry-plans.js';
import { ValueTypeField } from './value-type-field.js';

const Side = (description: string) =>
  Nullable(
    Type.Object(
      {
        id: Type.Optional(Uuid),
        value: Nullable(Type.String()),
        valueType: ValueTypeField,
        valueTypeName: Type.String(),
        generation: Type.Optional(Type.Integer()),
        isSecret: Type.Optional(Type.Boolean()),
        redacted: Type.Optional(Type.Boolean({ description: 'A secret: its value is left out (null)' })),
        fingerprint: Type.Optional(
          Nullable(Type.String({ description: "HMAC-SHA256 of a secret's value: equal values, equal fingerprints" })),
        ),
      },
      { description },
    ),
  );

const ViolationSchema = Type.Object({
  key: Nullable(Type.String()),
  entryId: Nullable(Type.String()),
  instancePath: Type.String(),
  keyword: Type.String(),
  message: Type.String(),
});

/** The answer of a restore or an import: the changes (dry run or applied) and the token to apply them. */
export const PlanOutcomeSchema = Type.Object(
  {
    changes: Type.Array(
      Type.Object({
        key: Type.String(),
        action: Type.String({ description: 'set, create, delete, or recreate (the value type changes)' }),
        current: Side('The entry now (null when the key does not exist)'),
        next: Side('The entry after the change (null for a deletion)'),
        violations: Type.Array(ViolationSchema, {
          description: "The rules of the entry's schema the next value breaks; applying refuses the plan when any does",
        }),
      }),
    ),
    unchanged: Type.Integer({ description: 'Keys looked at that stay as they are' }),
    basedOn: Type.String({ description: 'Pass it back to apply exactly this: 409 if any key changed meanwhile' }),
    applied: Type.Boolean(),
    validators: Type.Array(
      Type.Object({
        id: Uuid,
        url: Type.String(),
        passed: Type.Boolean({ description: 'It answered 2xx in time: applying would not be refused by it' }),
        statusCode: Nullable(Type.Integer()),
        message: Type.String({ description: 'The first 500 characters of its answer, or why it gave none' }),
      }),
      {
        description:
          "A dry run: what each enabled validator of the service answered (asked only when no value breaks its entry's schema); empty once applied",
      },
    ),
  },
  { description: 'What a restore or an import changes (or changed)' },
);

export function planOutcomeOf(outcome: PlanOutcome, cipher: SecretCipher) {
  return {
    ...outcome,
    validators: outcome.validators.map((a) => ({
      id: a.validatorId,
      url: a.url,
      passed: a.passed,
      statusCode: a.statusCode,
      message: a.message,
    })),
    changes: outcome.changes.map((c) => ({
      key: c.key,
      action: c.action,
      current: c.current && {
        id: c.current.id,
        ...valueAnswer(cipher, c.current),
        valueType: c.current.valueType,
        valueTypeName: valueTypeName(c.current.valueType),
        generation: c.current.generation,
      },
      next: c.next && {
        ...valueAnswer(cipher, c.next, { sent: c.next.sent === true }),
        valueType: c.next.valueType,
        valueTypeName: valueTypeName(c.next.valueType),
      },
      violations: [...c.violations],
    })),
  };
}
