/**
 * Items visited in one turn of the event loop by `inTurns`. Node's HTTP/2 sends what a turn wrote
 * only once the turn ends: a walk over 10,000 connections in one turn sends nothing until its last
 * write, and holds every other request as long. A slice of 256 takes well under a millisecond.
 */
export const ITEMS_PER_TURN = 256;

export interface TurnWalk<T> {
  /** Called for each item, in the iterator's order. */
  readonly visit: (item: T) => void;
  /** Checked before each slice: false stops the walk (what it walks is gone). */
  readonly going?: () => boolean;
  /** After each slice. */
  readonly afterSlice?: () => void;
  /** Once the last item was visited (not when the walk was stopped). */
  readonly done?: () => void;
}

/**
 * Visits the items of `items` `perTurn` at a time, the first slice at once and each next one a turn
 * of the event loop later (setImmediate), so other callbacks and the writes of the slice before run
 * in between. The iterator is read as the walk goes: a live Set or Map iterator also yields what was
 * added meanwhile and skips what was deleted.
 */
export function inTurns<T>(items: Iterator<T>, walk: TurnWalk<T>, perTurn = ITEMS_PER_TURN): void {
  const slice = () => {
    if (walk.going && !walk.going()) return;
    for (let n = 0; n < perTurn; n++) {
      const next = items.next();
      if (next.done) {
        walk.afterSlice?.();
        walk.done?.();
        return;
      }
      walk.visit(next.value);
    }
    walk.afterSlice?.();
    setImmediate(slice);
  };
  slice();
}
