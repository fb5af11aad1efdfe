import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/** JSON nested deeper than this is refused; no request of this API comes close. */
export const MAX_JSON_DEPTH = 400;

type Finding = { readonly path: string; readonly problem: 'nul' | 'ill-formed' | 'too-deep' };

function textProblem(text: string): Finding['problem'] | null {
  if (text.includes('\u0000')) return 'nul';
  return text.isWellFormed() ? null : 'ill-formed';
}

const child = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/**
 * Finds the first string (or object key) that holds U+0000 or a lone surrogate, or the first place
 * nested deeper than MAX_JSON_DEPTH. Iterative: a deeply nested body cannot exhaust the stack.
 */
export function findIllFormedText(root: unknown, rootPath = ''): Finding | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: rootPath, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, depth } = item;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { path, problem };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) return { path, problem: 'too-deep' };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: child(path, i), depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, nested] = entries[i] as [string, unknown];
      const problem = textProblem(key);
      if (problem) return { path: child(path, key.toWellFormed()), problem };
      stack.push({ value: nested, path: child(path, key), depth: depth + 1 });
    }
  }
  return null;
}

const MESSAGES: Readonly<Record<Finding['problem'], [detail: string, field: string]>> = {
  nul: ['Text may not contain the NUL character (U+0000).', 'must not contain U+0000'],
  'ill-formed': ['Text must be well-formed Unicode (no lone surrogate code points).', 'must be well-formed Unicode'],
  'too-deep': [
    `JSON may be nested at most ${MAX_JSON_DEPTH} levels deep.`,
    `is nested deeper than ${MAX_JSON_DEPTH} levels`,
  ],
};

/**
 * Text may not hold U+0000 (PostgreSQL cannot store it) nor lone surrogates (they cannot be stored
 * as UTF-8, so each database and protocol would read them back differently). Checked before
 * validation, so that both databases answer the same 400, on the path, the query and the body.
 */
export async function rejectIllFormedText(request: FastifyRequest): Promise<void> {
  const found =
    findIllFormedText(request.params) ?? findIllFormedText(request.query) ?? findIllFormedText(request.body);
  if (found !== null) {
    const [detail, message] = MESSAGES[found.problem];
    throw AppError.invalid(detail, { [found.path || 'body']: [message] });
  }
}
