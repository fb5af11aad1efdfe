import { TIME_SPAN } from '../../../rules/value-rules';

/** Boolean text as the server accepts it (any case); null for null or anything else. */
export function booleanOf(raw: string | null): boolean | null {
  if (raw === null) return null;
  if (/^true$/i.test(raw)) return true;
  if (/^false$/i.test(raw)) return false;
  return null;
}

/** An empty field of a typed editor means "no value" (null), which every type accepts. */
export function rawOrNull(text: string): string | null {
  return text.trim() === '' ? null : text;
}

/** A time span in words ("1 d 2 h 5 min"), or null when the text is no time span. */
export function describeTimeSpan(raw: string | null): string | null {
  if (raw === null) return null;
  const match = TIME_SPAN.exec(raw);
  if (!match) return null;
  const [, sign, days = '0', hours = '0', minutes = '0', seconds = '0', fraction = ''] = match;
  const parts: string[] = [];
  if (Number(days) > 0) parts.push(`${Number(days)} d`);
  if (Number(hours) > 0) parts.push(`${Number(hours)} h`);
  if (Number(minutes) > 0) parts.push(`${Number(minutes)} min`);
  const s = Number(seconds) + (fraction ? Number(`0.${fraction}`) : 0);
  if (s > 0 || parts.length === 0) parts.push(`${s} s`);
  return `${sign === '-' ? 'minus ' : ''}${parts.join(' ')}`;
}

/** A date-time in the user's time zone, or null when the text does not parse. */
export function describeDateTime(raw: string | null): string | null {
  if (raw === null || raw.trim() === '') return null;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) return null;
  const hasZone = /(Z|[+-]\d{2}(:?\d{2})?)$/.test(raw) && raw.includes('T');
  const shown = new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return hasZone ? `${shown} your time` : `${shown} (no time zone given)`;
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
