import { MAX_LABELS, MAX_LABELS_CHARS, UNTARGETED } from '../../core/index.js';
import { MAX_ID_CHARS } from '../realtime/index.js';
import type { EvaluationContext } from './flag-evaluation.js';

/** A request OFREP refuses with its own error body `{ errorCode, errorDetails }` (not problem details). */
export class OfrepError extends Error {
  constructor(
    readonly status: 400 | 404,
    readonly errorCode: 'INVALID_CONTEXT' | 'PARSE_ERROR' | 'GENERAL' | 'FLAG_NOT_FOUND',
    message: string,
  ) {
    super(message);
  }
}

const invalid = (details: string) => new OfrepError(400, 'INVALID_CONTEXT', details);

/**
 * An OFREP request body's context as an instance as targeting sees it (docs/targeting.md): `targetingKey` plays the instance id
 * and every other string attribute a label. Attributes of other types (numbers, booleans, objects)
 * are ignored, since labels are text. Bounded as an instance's own `x-rc-instance-id` and
 * `x-rc-labels` are; anything else is INVALID_CONTEXT.
 */
export function contextOf(body: unknown): EvaluationContext {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('The request body must be a JSON object: {"context": {"targetingKey": "…", …}}.');
  }
  const context = (body as { context?: unknown }).context;
  if (context === undefined || context === null) return UNTARGETED;
  if (typeof context !== 'object' || Array.isArray(context)) {
    throw invalid('context must be an object of attributes.');
  }
  let instanceId: string | null = null;
  const labels = new Map<string, string>();
  let chars = 0;
  let count = 0;
  for (const [name, value] of Object.entries(context)) {
    if (name === 'targetingKey') {
      if (typeof value !== 'string') throw invalid('context.targetingKey must be a string.');
      if (value.length > MAX_ID_CHARS) {
        throw invalid(`context.targetingKey is longer than ${MAX_ID_CHARS} characters.`);
      }
      instanceId = value === '' ? null : value;
      continue;
    }
    if (typeof value !== 'string') continue;
    if (name === '') throw invalid('A context attribute has an empty name.');
    count++;
    chars += name.length + value.length + 2;
    if (count > MAX_LABELS) throw invalid(`context has more than ${MAX_LABELS} string attributes.`);
    if (chars > MAX_LABELS_CHARS) {
      throw invalid(`context's string attributes are longer than ${MAX_LABELS_CHARS} characters in all.`);
    }
    labels.set(name, value);
  }
  return { instanceId, labels };
}
