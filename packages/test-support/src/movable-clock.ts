import { systemClock, type Clock } from '../../server/src/platform/clock.js';

/** A server clock a test moves on: the machine's time, plus what the test advanced it by. */
export interface MovableClock extends Clock {
  /** Moves the clock on by this many seconds (a rollout's step time comes when the test says so). */
  advance(seconds: number): void;
}

/**
 * The clock to inject into a test server (`startTestServer({ deps: { clock } })`) when a rule runs
 * on time (rollout steps, bake times): the test moves it instead of waiting, whatever the machine's load.
 */
export function movableClock(): MovableClock {
  let offset = 0;
  return {
    nowMicros: () => systemClock.nowMicros() + offset,
    advance(seconds: number) {
      offset += seconds * 1_000_000;
    },
  };
}
