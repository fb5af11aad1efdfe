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
