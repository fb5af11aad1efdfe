import { useEffect, useMemo, useState } from 'react';
import { schemaError } from './schema-check';

/** A value to check against its entry's schema. */
export interface SchemaCheckedValue {
  readonly id: string;
  readonly schema: object | null;
  readonly valueType: number;
  readonly rawValue: string | null;
}

/**
 * The rules of their entries' schemas that values break, by id: a message, null when the value meets
 * them (or has no schema), `undefined` while it is being checked (a moment).
 */
export function useSchemaErrors(values: readonly SchemaCheckedValue[]): ReadonlyMap<string, string | null | undefined> {
  const asked = useMemo(() => JSON.stringify(values), [values]);
  const [answered, setAnswered] = useState<{ asked: string; errors: ReadonlyMap<string, string | null> }>({
    asked: '',
    errors: new Map(),
  });
  useEffect(() => {
    let current = true;
    const checked = JSON.parse(asked) as SchemaCheckedValue[];
    void Promise.all(
      // A checker that fails to answer leaves the value to the server, which checks every write.
      checked.map((v) => schemaError(v.schema, v.valueType, v.rawValue).catch(() => null)),
    ).then((errors) => {
      if (current) setAnswered({ asked, errors: new Map(checked.map((v, i) => [v.id, errors[i] ?? null])) });
    });
    return () => {
      current = false;
    };
  }, [asked]);
  if (answered.asked === asked) return answered.errors;
  return new Map(values.map((v) => [v.id, v.schema === null || v.rawValue === null ? null : undefined]));
}
