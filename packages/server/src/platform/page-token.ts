import { AppError } from './errors.js';

/** Cursor page tokens: opaque to clients, a position (a row number) to us. */
export function encodePageToken(position: number): string {
  return Buffer.from(JSON.stringify({ p: position })).toString('base64url');
}

export function decodePageToken(token: string | null | undefined): number | null {
  if (token === null || token === undefined || token === '') return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    const position = (parsed as { p?: unknown } | null)?.p;
    if (typeof position === 'number' && Number.isSafeInteger(position) && position >= 0) return position;
  } catch {
    // fall through to the validation error
  }
  throw AppError.invalid('The page token is not valid.', { pageToken: ['is not a token returned by this API'] });
}

/** pageSize defaults to 20 and is clamped to 1–500 (docs/rest-api.md, Paging). */
export function clampPageSize(pageSize: number | null | undefined): number {
  if (pageSize === null || pageSize === undefined || !Number.isFinite(pageSize)) return 20;
  return Math.min(500, Math.max(1, Math.trunc(pageSize)));
}
