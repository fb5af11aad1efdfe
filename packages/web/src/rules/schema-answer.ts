import { schemaProblem, schemaViolations, type SchemaViolation } from '@realtime-config/protocol';

/**
 * What the console asks of an entry's schema: is it one (`schema`), and which of its rules a value
 * breaks (`value`). Answered by the protocol package's checker, the one the server and the SDK use.
 */
export type SchemaQuestion =
  | { readonly kind: 'schema'; readonly schema: unknown }
  | {
      readonly kind: 'value';
      readonly schema: object;
      readonly valueType: number;
      readonly rawValue: string | null;
    };

export interface SchemaAnswer {
  /** What is wrong with the schema; null when it is a valid one. */
  readonly problem: string | null;
  /** The rules the value breaks (a `value` question about a valid schema); none otherwise. */
  readonly violations: readonly SchemaViolation[];
}

let mayCompile: boolean | undefined;

/**
 * Whether code may be compiled here: a Content-Security-Policy without `'unsafe-eval'` forbids it,
 * and then every schema would look invalid. Asked once, only where a check runs.
 */
function compiles(): boolean {
  if (mayCompile === undefined) {
    try {
      // The probe of what Ajv needs.
      mayCompile = new Function('return true')() === true;
    } catch {
      mayCompile = false;
    }
  }
  return mayCompile;
}

/** The answer; none (nothing marked) where schemas cannot be compiled: the server checks every write anyway. */
export function answerSchemaQuestion(question: SchemaQuestion): SchemaAnswer {
  if (!compiles()) return { problem: null, violations: [] };
  const problem = schemaProblem(question.schema);
  if (problem !== null || question.kind === 'schema') return { problem, violations: [] };
  return { problem, violations: schemaViolations(question.schema, question.valueType, question.rawValue) };
}
