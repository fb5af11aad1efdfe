import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/** Finds the path of the first string holding U+0000 in a JSON value. */
function findNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNul(item, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return path ? `${path}.${key}` : key;
      const found = findNul(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Text may not hold U+0000: PostgreSQL cannot store it, and no key, name or value needs it. Checked
 * before validation so that both databases answer the same 400.
 */
export async function rejectNulCharacters(request: FastifyRequest): Promise<void> {
  const where = findNul(request.params, '') ?? findNul(request.query, '') ?? findNul(request.body, '');
  if (where !== null) {
    throw AppError.invalid('Text may not contain the NUL character (U+0000).', {
      [where || 'body']: ['must not contain U+0000'],
    });
  }
}
