/**
 * ISO 8601 date-times: a date, optionally a time (after `T` or a space) with optional seconds, a
 * fraction (`.` or `,`, up to 9 digits) and an offset (`Z`, `+01`, `+0130`, `+01:30`). The date must
 * exist (no February 30), the time and the offset must be real (hours ≤ 23, minutes and seconds ≤ 59).
 * Without an offset the time is read as UTC, so every host reads the same instant whatever its zone.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:Z|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/** The instant of an ISO 8601 text (to the millisecond; further digits are cut), or undefined when it is none. */
export function parseDateTime(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const part = (group: number): number => Number(match[group] ?? 0);
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)];
  const [offsetHours, offsetMinutes] = [part(9), part(10)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, takes the years 0–99 as they are (not as 1900–1999).
  date.setUTCFullYear(year, month - 1, day);
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offset = (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  date.setUTCHours(hour, minute - offset, second, millis);
  return date;
}

/** True for an ISO 8601 text of a real date and time. */
export function isDateTime(text: string): boolean {
  return parseDateTime(text) !== undefined;
}

/**
 * The ISO 8601 text of an instant, in UTC to the millisecond (`2026-11-21T08:00:00.000Z`).
 * @throws RangeError when it is an invalid Date or lies outside the years 0000–9999 (UTC).
 */
export function formatDateTime(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('is not a valid Date');
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError('is outside the years 0000–9999');
  return date.toISOString();
}
