import { Type, type TSchema } from 'typebox';

/** A value that is either T or null; every JSON answer says null rather than leaving a field out. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });

export const ProblemDetailsSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    violations: Type.Optional(
      Type.Array(
        Type.Object({
          key: Nullable(Type.String()),
          entryId: Nullable(Type.String()),
          instancePath: Type.String({ description: 'JSON Pointer into the value; "" for the whole value' }),
          keyword: Type.String({ description: 'The JSON Schema keyword broken, or "validator"' }),
          message: Type.String(),
        }),
        { description: 'A refused write: every rule it breaks (at most 100)' },
      ),
    ),
    rolloutId: Type.Optional(
      Type.String({
        description: 'A write refused (409) because a running rollout holds the entry: that rollout',
      }),
    ),
  },
  { $id: 'ProblemDetails', description: 'RFC 9457 problem details' },
);

const problemRef = Type.Unsafe<unknown>({ $ref: 'ProblemDetails#' });

/** Response schemas of the errors a route can answer, for the OpenAPI document. */
export function problems(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(statuses.map((status) => [status, problemRef]));
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, microsecond precision' });
