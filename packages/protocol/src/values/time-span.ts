/**
 * TimeSpan values as .NET writes them (its invariant "c" format, `[-][d.]HH:mm:ss[.fffffff]`), within
 * TimeSpan.MinValue…MaxValue. .NET counts in ticks of 100 ns; so do these functions (as bigint), and
 * the SDK reads a time span as a number of milliseconds.
 */
const TIME_SPAN = /^(-?)(?:(\d{1,8})\.)?([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,7}))?$/;

/** TimeSpan.MaxValue in ticks: 10675199.02:48:05.4775807. */
export const MAX_TIME_SPAN_TICKS = 9_223_372_036_854_775_807n;
/** TimeSpan.MinValue in ticks: -10675199.02:48:05.4775808, one tick further than MaxValue. */
export const MIN_TIME_SPAN_TICKS = -MAX_TIME_SPAN_TICKS - 1n;

const TICKS_PER_MS = 10_000n;
const TICKS_PER_SECOND = 10_000_000n;

/** The parts of a time span text; `negative` only when it is not zero. */
export interface TimeSpanParts {
  readonly negative: boolean;
  readonly days: number;
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
  /** The fraction of the second in ticks, 0 to 9,999,999. */
  readonly fractionTicks: number;
}

/** The parts of a time span text, or undefined when it is none or lies beyond MinValue…MaxValue. */
export function timeSpanParts(text: string): TimeSpanParts | undefined {
  const match = TIME_SPAN.exec(text);
  if (!match) return undefined;
  const [, sign, days = '0', hours = '0', minutes = '0', seconds = '0', fraction = ''] = match;
  const parts = {
    negative: sign === '-',
    days: Number(days),
    hours: Number(hours),
    minutes: Number(minutes),
    seconds: Number(seconds),
    fractionTicks: Number(fraction.padEnd(7, '0')),
  };
  const magnitude = magnitudeOf(parts);
  if (magnitude > (parts.negative ? -MIN_TIME_SPAN_TICKS : MAX_TIME_SPAN_TICKS)) return undefined;
  return magnitude === 0n ? { ...parts, negative: false } : parts;
}

function magnitudeOf(parts: TimeSpanParts): bigint {
  const seconds = ((BigInt(parts.days) * 24n + BigInt(parts.hours)) * 60n + BigInt(parts.minutes)) * 60n;
  return (seconds + BigInt(parts.seconds)) * TICKS_PER_SECOND + BigInt(parts.fractionTicks);
}

/** The ticks of a time span text, or undefined when it is none or lies beyond MinValue…MaxValue. */
export function timeSpanTicks(text: string): bigint | undefined {
  const parts = timeSpanParts(text);
  if (!parts) return undefined;
  const magnitude = magnitudeOf(parts);
  return parts.negative ? -magnitude : magnitude;
}

/** True for a time span text within MinValue…MaxValue. */
export function isTimeSpan(text: string): boolean {
  return timeSpanParts(text) !== undefined;
}

const OUTSIDE = 'is outside TimeSpan.MinValue…MaxValue (±10675199.02:48:05.4775807)';

/** The text .NET writes for a number of ticks (`1.02:03:04.5000000`, `-00:00:01`). @throws RangeError beyond MinValue…MaxValue. */
export function formatTimeSpanTicks(ticks: bigint): string {
  if (ticks > MAX_TIME_SPAN_TICKS || ticks < MIN_TIME_SPAN_TICKS) throw new RangeError(OUTSIDE);
  const magnitude = ticks < 0n ? -ticks : ticks;
  const fraction = magnitude % TICKS_PER_SECOND;
  const totalSeconds = magnitude / TICKS_PER_SECOND;
  const days = totalSeconds / 86_400n;
  const two = (n: bigint): string => String(n).padStart(2, '0');
  const clock = `${two((totalSeconds / 3600n) % 24n)}:${two((totalSeconds / 60n) % 60n)}:${two(totalSeconds % 60n)}`;
  const dayPart = days > 0n ? `${days}.` : '';
  const fractionPart = fraction > 0n ? `.${String(fraction).padStart(7, '0')}` : '';
  return `${ticks < 0n ? '-' : ''}${dayPart}${clock}${fractionPart}`;
}

const msOfTicks = (ticks: bigint): number => Number(ticks / TICKS_PER_MS) + Number(ticks % TICKS_PER_MS) / 10_000;

/** MaxValue in milliseconds, as near as a number gets (a fraction of a millisecond beyond it). */
const MAX_TIME_SPAN_MS = msOfTicks(MAX_TIME_SPAN_TICKS);

/** The milliseconds of a time span text (fractions of a millisecond kept), or undefined when it is none. */
export function parseTimeSpan(text: string): number | undefined {
  const ticks = timeSpanTicks(text);
  if (ticks === undefined) return undefined;
  return ticks < 0n ? -msOfTicks(-ticks) : msOfTicks(ticks);
}

/**
 * The time span text of a number of milliseconds, rounded to the tick. A number that is MaxValue or
 * MinValue as read by {@link parseTimeSpan} writes MaxValue or MinValue.
 * @throws RangeError when it is not finite or lies beyond MinValue…MaxValue.
 */
export function formatTimeSpan(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError('is not a finite number of milliseconds');
  const abs = Math.abs(ms);
  if (abs > MAX_TIME_SPAN_MS) throw new RangeError(OUTSIDE);
  const whole = Math.trunc(abs);
  const magnitude = BigInt(whole) * TICKS_PER_MS + BigInt(Math.round((abs - whole) * 10_000));
  // Only the numbers nearest to MaxValue and MinValue round beyond them; they were read from those.
  if (ms < 0) return formatTimeSpanTicks(magnitude > -MIN_TIME_SPAN_TICKS ? MIN_TIME_SPAN_TICKS : -magnitude);
  return formatTimeSpanTicks(magnitude > MAX_TIME_SPAN_TICKS ? MAX_TIME_SPAN_TICKS : magnitude);
}
