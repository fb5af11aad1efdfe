import { describe, expect, it } from 'vitest';
import { inTurns } from './turns.js';

/** The turn of the event loop each visit happened in, counted by a callback that reschedules itself. */
function turnCounter() {
  const counter = { turn: 0, running: true };
  const tick = () => {
    counter.turn++;
    if (counter.running) setImmediate(tick);
  };
  setImmediate(tick);
  return counter;
}

describe('inTurns', () => {
  it('visits every item in order, a slice per turn, and says done once', async () => {
    const turns = turnCounter();
    const seen: Array<{ item: number; turn: number }> = [];
    let slices = 0;
    let done = 0;
    await new Promise<void>((resolve) =>
      inTurns(
        [...Array(10).keys()].values(),
        {
          visit: (item) => seen.push({ item, turn: turns.turn }),
          afterSlice: () => slices++,
          done: () => (done++, resolve()),
        },
        4,
      ),
    );
    turns.running = false;
    expect(seen.map((s) => s.item)).toEqual([...Array(10).keys()]);
    expect(slices).toBe(3);
    expect(done).toBe(1);
    // The first slice at once, each next one in a later turn: other callbacks ran in between.
    const turnOf = (item: number) => seen[item]?.turn ?? -1;
    expect(new Set([turnOf(0), turnOf(3)]).size).toBe(1);
    expect(turnOf(4)).toBeGreaterThan(turnOf(3));
    expect(turnOf(8)).toBeGreaterThan(turnOf(7));
  });

  it('walks a live Set: what is added meanwhile is visited, what is deleted is not', async () => {
    const items = new Set([1, 2, 3, 4, 5]);
    const seen: number[] = [];
    await new Promise<void>((resolve) =>
      inTurns(
        items.values(),
        {
          visit: (item) => {
            seen.push(item);
            if (item === 1) {
              items.delete(4);
              setImmediate(() => items.add(6));
            }
          },
          done: resolve,
        },
        2,
      ),
    );
    expect(seen).toEqual([1, 2, 3, 5, 6]);
  });

  it('stops when going says so, without done', async () => {
    let going = true;
    const seen: number[] = [];
    let done = false;
    inTurns(
      [1, 2, 3, 4, 5].values(),
      {
        visit: (item) => {
          seen.push(item);
          if (item === 2) going = false;
        },
        going: () => going,
        done: () => (done = true),
      },
      2,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([1, 2]);
    expect(done).toBe(false);
  });
});
