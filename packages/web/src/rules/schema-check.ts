import { describeViolations } from '@realtime-config/protocol';
import { answerSchemaQuestion, type SchemaAnswer, type SchemaQuestion } from './schema-answer';

export type { SchemaAnswer, SchemaQuestion };

/**
 * An entry's JSON Schema checked in the console with the checker of the server and the SDK (the
 * protocol package's Ajv). Ajv compiles a schema with `new Function`, which the console's
 * Content-Security-Policy refuses, so the check runs in a worker of its own (docs/adr/0014). Where
 * there are no workers (the component tests' jsdom) it runs in place.
 */

type Reply = { id: number; answer: SchemaAnswer } | { id: number; failure: string };

let worker: Worker | null | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (answer: SchemaAnswer) => void; reject: (error: Error) => void }>();

function schemaWorker(): Worker | null {
  if (worker !== undefined) return worker;
  if (typeof Worker === 'undefined') return (worker = null);
  const started = new Worker(new URL('./schema-worker.ts', import.meta.url), { type: 'module', name: 'schema-check' });
  started.onmessage = (event: MessageEvent<Reply>) => {
    const reply = event.data;
    const waiter = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (!waiter) return;
    if ('answer' in reply) waiter.resolve(reply.answer);
    else waiter.reject(new Error(reply.failure));
  };
  started.onerror = () => {
    for (const waiter of waiting.values()) waiter.reject(new Error('The schema checker did not start.'));
    waiting.clear();
  };
  return (worker = started);
}

/** Asks the checker; the answer comes back in a moment (a worker's round trip). */
export function askSchema(question: SchemaQuestion): Promise<SchemaAnswer> {
  const checker = schemaWorker();
  if (!checker) {
    try {
      return Promise.resolve(answerSchemaQuestion(question));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    checker.postMessage({ id, question });
  });
}

/**
 * The rules of its schema a value breaks, as one message for its field ("must be <= 300"), or null
 * when it meets them (or has no schema).
 */
export async function schemaError(
  schema: object | null,
  valueType: number,
  rawValue: string | null,
): Promise<string | null> {
  if (schema === null || rawValue === null) return null;
  const { problem, violations } = await askSchema({ kind: 'value', schema, valueType, rawValue });
  if (problem !== null) return null;
  return violations.length > 0 ? describeViolations(violations) : null;
}

/**
 * A schema typed as JSON text: the schema (null for an empty text: no schema), or what is wrong with
 * it (not JSON, not a valid 2020-12 schema).
 */
export async function checkSchemaText(
  text: string,
): Promise<{ readonly schema: Record<string, unknown> | null; readonly problem: string | null }> {
  if (text.trim() === '' || text.trim() === 'null') return { schema: null, problem: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { schema: null, problem: `Not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const { problem } = await askSchema({ kind: 'schema', schema: parsed });
  // A valid schema is a JSON object (schemaProblem says so otherwise).
  if (problem === null) return { schema: parsed as Record<string, unknown>, problem: null };
  return { schema: null, problem: `The schema ${problem}` };
}
