/**
 * The summary's latency and time to first token: every completed rollout's time, kept
 * compactly until the end, then its mean and percentiles.
 */
import { percentileSorted } from './stats.js';
import type { Summary } from './summary.js';

/**
 * A growable list of numbers in one typed array: 4 bytes a number while every number is a
 * whole one from 0 to 2^32 - 1 (bas records latencies in whole milliseconds), 8 bytes once
 * any other has come (a results file written by something else). A -0 is kept as 0 in
 * either width, so the column's values do not depend on when it grew.
 */
export class Floats {
  private data: Uint32Array | Float64Array = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    const x = value === 0 ? 0 : value;
    if (this.data instanceof Uint32Array && !(Number.isInteger(x) && x >= 0 && x <= 0xffff_ffff))
      this.data = Float64Array.from(this.data);
    if (this.length === this.data.length) {
      const bigger =
        this.data instanceof Uint32Array ? new Uint32Array(this.length * 2) : new Float64Array(this.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = x;
  }

  /** The numbers in ascending order. */
  sorted(): Float64Array {
    return Float64Array.from(this.data.subarray(0, this.length)).sort();
  }
}

/** Mean and percentiles of sorted times. */
export function timing(sorted: Float64Array): Summary['latency_ms'] {
  return {
    n: sorted.length,
    mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null,
    p50: percentileSorted(sorted, 0.5),
    p95: percentileSorted(sorted, 0.95),
  };
}
