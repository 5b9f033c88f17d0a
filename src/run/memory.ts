/**
 * Keeping a long run's memory flat. A run's live data is small (about 15 MB of heap plus the
 * summary's columns), but at a thousand rollouts a second V8 lets garbage pile up to several
 * times that before it collects, which on a 100,000-rollout run meant 250 MB of RSS. A full
 * collection whenever the heap passes a bound costs a few milliseconds and keeps the peak near
 * the live size.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;

/** V8's `gc()`, obtained without a command-line flag; null where the engine refuses. */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  } catch {
    collect = null;
  }
  return collect;
}

/**
 * Returns a function to call once per finished rollout. Every `every` calls it looks at the
 * heap and collects when more than `limitMb` is in use, so short runs never pay for it.
 */
export function gcWhenAbove(limitMb: number, every = 250): () => void {
  let n = 0;
  let gc: (() => void) | null | undefined;
  return () => {
    if (++n % every !== 0) return;
    if (getHeapStatistics().used_heap_size < limitMb * 1048576) return;
    gc ??= collector();
    gc?.();
  };
}
