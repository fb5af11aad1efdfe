/**
 * ISO 8601 date-times as the server accepts them: a date, optionally a time (`T` or a space), an
 * optional fraction (`.` or `,`, up to 9 digits) and an optional offset. Without an offset the
 * time is read as UTC, so every host reads the same instant whatever its time zone.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** The Date of an ISO 8601 text, or undefined when it is not one (or names no real day or time). */
export function parseDateTime(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(Number(year), m, 0)).getUTCDate()) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const millis = fraction.padEnd(3, '0').slice(0, 3);
  const offset = zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '') || '00'}`;
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
