/** Time source, injected so tests can control it. All change times are integer microseconds since the epoch. */
export interface Clock {
  nowMicros(): number;
}

export const systemClock: Clock = {
  // performance.now() has sub-millisecond resolution; Date.now() alone would make every write in the
  // same millisecond fall back to last_ts + 1.
  nowMicros: () => Math.floor((performance.timeOrigin + performance.now()) * 1000),
};

export function microsToIso(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-21T12:00:00.123Z
  const extra = String(us - ms * 1000).padStart(3, '0');
  return `${iso.slice(0, -1)}${extra}Z`;
}

const ISO_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Microseconds since the epoch of an ISO 8601 date-time with a zone (`Z` or `±hh:mm`), fractions up
 * to nanoseconds truncated to microseconds; undefined when the text is not one.
 */
export function isoToMicros(text: string): number | undefined {
  const match = ISO_TIME.exec(text.trim());
  if (!match) return undefined;
  const [, seconds, fraction = '', zone] = match;
  const ms = Date.parse(`${seconds}${zone?.toUpperCase() === 'Z' ? 'Z' : zone}`);
  if (Number.isNaN(ms)) return undefined;
  return ms * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}
