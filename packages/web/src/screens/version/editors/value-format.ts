import { parseBoolean, parseDateTime, timeSpanParts } from '@realtime-config/protocol';

/** Boolean text as the server accepts it (any case); null for null or anything else. */
export function booleanOf(raw: string | null): boolean | null {
  return raw === null ? null : (parseBoolean(raw) ?? null);
}

/** An empty field of a typed editor means "no value" (null), which every type accepts. */
export function rawOrNull(text: string): string | null {
  return text.trim() === '' ? null : text;
}

/** A time span in words ("1 d 2 h 5 min"), or null when the text is no time span the server accepts. */
export function describeTimeSpan(raw: string | null): string | null {
  const span = raw === null ? undefined : timeSpanParts(raw);
  if (!span) return null;
  const parts: string[] = [];
  if (span.days > 0) parts.push(`${span.days} d`);
  if (span.hours > 0) parts.push(`${span.hours} h`);
  if (span.minutes > 0) parts.push(`${span.minutes} min`);
  const seconds = span.seconds + span.fractionTicks / 10_000_000;
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds} s`);
  return `${span.negative ? 'minus ' : ''}${parts.join(' ')}`;
}

/**
 * A date-time in the user's time zone as the SDK reads it, or null when the server would refuse the
 * text. A text without an offset is read as UTC.
 */
export function describeDateTime(raw: string | null): string | null {
  const date = raw === null ? undefined : parseDateTime(raw);
  if (!date) return null;
  const hasZone = /[T ].*(Z|[+-]\d{2}(:?\d{2})?)$/.test(raw ?? '');
  const shown = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return hasZone ? `${shown} your time` : `${shown} your time (no time zone given: read as UTC)`;
}

/** JSON text for the code editor: on one line when short, indented when long; as it is when it does not parse. */
export function formatJson(raw: string | null): string {
  if (raw === null) return '';
  try {
    const parsed: unknown = JSON.parse(raw);
    const compact = JSON.stringify(parsed);
    return compact.length <= 60 ? compact : JSON.stringify(parsed, null, 2);
  } catch {
    return raw;
  }
}
