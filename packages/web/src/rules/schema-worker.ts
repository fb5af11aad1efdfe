import { answerSchemaQuestion, type SchemaQuestion } from './schema-answer';

/**
 * The worker that compiles schemas (schema-check.ts): Ajv turns a schema into a function with
 * `new Function`, which the console document's Content-Security-Policy forbids. This worker has its
 * own policy (the server sends `script-src 'self' 'unsafe-eval'`, no network), no DOM and no token.
 */
interface WorkerScope {
  onmessage: ((event: MessageEvent<{ id: number; question: SchemaQuestion }>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = self as unknown as WorkerScope;
scope.onmessage = (event) => {
  const { id, question } = event.data;
  try {
    scope.postMessage({ id, answer: answerSchemaQuestion(question) });
  } catch (error) {
    scope.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
  }
};
