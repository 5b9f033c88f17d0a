/**
 * Keeping a long run's memory flat. A run's live data is small (about 15 MB of heap plus the
 * summary's columns), but at a thousand rollouts a second V8 lets garbage pile up to several
 * times that before it collects, which on a 100,000-rollout run meant 250 MB of RSS. A full
 * collection whenever the heap passes a bound costs a few milliseconds and keeps the peak near
 * the live size.
 *
 * The collection is opt-in: it needs V8's `gc()`, which exists only when node was started
 * with `--expose-gc` (say `NODE_OPTIONS=--expose-gc bas eval ...`). Turning the flag on from
 * inside a running process (v8.setFlagsFromString) is what Node's documentation warns may
 * crash or corrupt, so without the flag this does nothing and V8 collects on its own terms.
 */
import { getHeapStatistics } from 'node:v8';

/** V8's `gc()` when node was started with --expose-gc, else null. */
function collector(): (() => void) | null {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as () => void) : null;
}

/**
 * Returns a function to call once per finished rollout. Every `every` calls it looks at the
 * heap, and when it holds more than `headroomMb` beyond what was live after the last
 * collection (and at least `headroomMb` in all), it collects at the next call. Short runs
 * never pay for it, a long run (whose live data grows slowly with its summary) does not
 * collect ever more often, and since the collection waits for the next rollout, the last
 * rollout of a run, the one the whole run waits for, is never held up by one.
 */
export function gcWhenAbove(headroomMb: number, every = 250): () => void {
  const headroom = headroomMb * 1048576;
  let bound = headroom;
  let n = 0;
  let due: (() => void) | null = null;
  return () => {
    if (due) {
      due();
      due = null;
      bound = getHeapStatistics().used_heap_size + headroom;
      return;
    }
    if (++n % every !== 0) return;
    if (getHeapStatistics().used_heap_size < bound) return;
    due = collector();
  };
}
