/**
 * .NET TimeSpan text as the server checks it (`[-][d.]HH:mm:ss[.fffffff]`, the "c" format) to and
 * from a number of milliseconds. Fractions keep the 100 ns ticks .NET has, so a value written by a
 * .NET SDK reads back exactly.
 */
const TIME_SPAN = /^(-)?(?:(\d{1,8})\.)?([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,7}))?$/;

const MS_PER_SECOND = 1000;
const TICKS_PER_MS = 10_000;
const MAX_DAYS = 99_999_999;

/** Milliseconds of a time span text, or undefined when it is not one. */
export function parseTimeSpan(text: string): number | undefined {
  const match = TIME_SPAN.exec(text);
  if (!match) return undefined;
  const [, minus, days = '0', hours, minutes, seconds, fraction = ''] = match;
  const wholeSeconds = ((Number(days) * 24 + Number(hours)) * 60 + Number(minutes)) * 60 + Number(seconds);
  const ticks = fraction === '' ? 0 : Number(fraction.padEnd(7, '0'));
  const ms = wholeSeconds * MS_PER_SECOND + ticks / TICKS_PER_MS;
  return minus && ms !== 0 ? -ms : ms;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** The time span text of a number of milliseconds, as .NET writes it (`1.02:03:04.5000000`). */
export function formatTimeSpan(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError('is not a finite number of milliseconds');
  const abs = Math.abs(ms);
  let wholeMs = Math.trunc(abs);
  let subTicks = Math.round((abs - wholeMs) * TICKS_PER_MS);
  if (subTicks === TICKS_PER_MS) {
    wholeMs += 1;
    subTicks = 0;
  }
  const totalSeconds = Math.trunc(wholeMs / MS_PER_SECOND);
  const fractionTicks = (wholeMs % MS_PER_SECOND) * TICKS_PER_MS + subTicks;
  const days = Math.trunc(totalSeconds / 86_400);
  if (days > MAX_DAYS) throw new RangeError(`is longer than ${MAX_DAYS} days`);
  const hours = Math.trunc(totalSeconds / 3600) % 24;
  const minutes = Math.trunc(totalSeconds / 60) % 60;
  const seconds = totalSeconds % 60;
  const sign = ms < 0 && (wholeMs > 0 || subTicks > 0) ? '-' : '';
  const dayPart = days > 0 ? `${days}.` : '';
  const fractionPart = fractionTicks > 0 ? `.${String(fractionTicks).padStart(7, '0')}` : '';
  return `${sign}${dayPart}${two(hours)}:${two(minutes)}:${two(seconds)}${fractionPart}`;
}
