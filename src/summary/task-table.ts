/**
 * What a summary keeps per task when rollouts of one task are pooled: how many rollouts, how
 * many completed and how many got the BAS right (pass@k), and per estimated column the sum and
 * count of its values (the cluster-robust standard error and compare's per-task means). Slots
 * live in fixed typed-array chunks and a task index finds its slot through one map, so a
 * sharded run's strided indices cost no more than a whole run's.
 */
import { CompensatedSum } from './compensated-sum.js';
import type { TaskColumn } from './moments.js';

const CHUNK_BITS = 10;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

/**
 * One column's per-task sums, exact: each slot holds its sum as two doubles, the rounded sum
 * and what rounding left out (so `sum` is the exact sum rounded once, whatever the order of
 * the task's values), and a slot whose exact sum two doubles cannot hold (values of very
 * different sizes) moves to a CompensatedSum of its own.
 */
class ExactTaskColumn implements TaskColumn {
  private readonly highs: Float64Array[] = [];
  private readonly lows: Float64Array[] = [];
  private readonly counts: Uint16Array[] = [];
  private readonly wide = new Map<number, CompensatedSum>();

  grow(): void {
    this.highs.push(new Float64Array(CHUNK));
    this.lows.push(new Float64Array(CHUNK));
    this.counts.push(new Uint16Array(CHUNK));
  }

  /** Adds `x` to the task in `slot`; returns how many values it now holds. */
  add(slot: number, x: number): number {
    // A 0 changes no sum, and most scores are 0 or 1.
    if (x !== 0) this.addToSum(slot, x);
    return ++this.counts[slot >>> CHUNK_BITS]![slot & MASK]!;
  }

  private addToSum(slot: number, x: number): void {
    const k = slot >>> CHUNK_BITS;
    const j = slot & MASK;
    const wide = this.wide.size === 0 ? undefined : this.wide.get(slot);
    if (wide !== undefined) {
      wide.add(x);
      return;
    }
    const a = this.highs[k]![j]!;
    const b = this.lows[k]![j]!;
    // a + x = s + e exactly, then b + e = t + f exactly (Knuth's two-sum).
    const s = a + x;
    const sv = s - a;
    const e = a - (s - sv) + (x - sv);
    const t = b + e;
    const tv = t - b;
    const f = b - (t - tv) + (e - tv);
    if (f !== 0 || !Number.isFinite(s)) {
      const sum = new CompensatedSum();
      for (const v of [a, b, x]) sum.add(v);
      this.wide.set(slot, sum);
    } else {
      // s + t as the rounded sum and its error: the high part is the exact sum rounded once.
      const u = s + t;
      const uv = u - s;
      this.highs[k]![j] = u;
      this.lows[k]![j] = s - (u - uv) + (t - uv);
    }
  }

  sum(slot: number): number {
    return this.wide.get(slot)?.value ?? this.highs[slot >>> CHUNK_BITS]![slot & MASK]!;
  }

  count(slot: number): number {
    return this.counts[slot >>> CHUNK_BITS]![slot & MASK]!;
  }
}

/** Task indices below this find their slot in an array (4 bytes each), larger ones in a map. */
const DENSE_INDICES = 1 << 24;

export class TaskTable {
  /** Slot + 1 of each task index below DENSE_INDICES (0: none yet), grown as indices come. */
  private denseSlots = new Int32Array(0);
  private readonly slotOf = new Map<number, number>();
  private readonly indices: Float64Array[] = [];
  private readonly rollouts: Uint16Array[] = [];
  private readonly done: Uint16Array[] = [];
  private readonly hits: Uint16Array[] = [];
  readonly columns: ExactTaskColumn[];
  size = 0;
  maxRollouts = 0;

  constructor(columns: number) {
    this.columns = Array.from({ length: columns }, () => new ExactTaskColumn());
  }

  /** The slot of task `index`, made on first sight; counts one more rollout of it. */
  rollout(index: number): number {
    let s = this.slotOfIndex(index);
    if (s === undefined) {
      s = this.size++;
      this.setSlot(index, s);
      if (s >>> CHUNK_BITS >= this.indices.length) {
        this.indices.push(new Float64Array(CHUNK));
        this.rollouts.push(new Uint16Array(CHUNK));
        this.done.push(new Uint16Array(CHUNK));
        this.hits.push(new Uint16Array(CHUNK));
        for (const c of this.columns) c.grow();
      }
      this.indices[s >>> CHUNK_BITS]![s & MASK] = index;
    }
    const n = ++this.rollouts[s >>> CHUNK_BITS]![s & MASK]!;
    if (n > this.maxRollouts) this.maxRollouts = n;
    return s;
  }

  private slotOfIndex(index: number): number | undefined {
    const s = index < this.denseSlots.length && index >= 0 ? (this.denseSlots[index] ?? 0) : 0;
    if (s !== 0) return s - 1;
    return this.slotOf.size === 0 ? undefined : this.slotOf.get(index);
  }

  /**
   * Files bas writes give each task index once per rollout, counting up from 0 (or strided, a
   * shard): those find their slot in an array. An index far past the tasks seen so far (the
   * array would mostly be empty) goes to the map instead, so memory stays a few bytes a task.
   */
  private setSlot(index: number, s: number): void {
    if (Number.isInteger(index) && index >= 0 && index < DENSE_INDICES) {
      if (index < this.denseSlots.length) {
        this.denseSlots[index] = s + 1;
        return;
      }
      if (index < 8 * (this.size + 1) + 65_536) {
        const bigger = new Int32Array(Math.min(DENSE_INDICES, Math.max(65_536, 2 * index + 1)));
        bigger.set(this.denseSlots);
        this.denseSlots = bigger;
        this.denseSlots[index] = s + 1;
        return;
      }
    }
    this.slotOf.set(index, s);
  }

  /** Marks one rollout of the task in `slot` completed, and whether it got the BAS right. */
  completed(slot: number, hit: boolean): void {
    this.done[slot >>> CHUNK_BITS]![slot & MASK]!++;
    if (hit) this.hits[slot >>> CHUNK_BITS]![slot & MASK]!++;
  }

  /** Adds `x` to column `c` of the task in `slot`; true when that task now holds two values or more. */
  add(c: number, slot: number, x: number): boolean {
    return this.columns[c]!.add(slot, x) >= 2;
  }

  /**
   * Each task's index, rollouts, completed rollouts and sum of column `c`, in slot order, into
   * arrays of `size` entries: no object per task, so a report pairing 100,000-task runs
   * makes none.
   */
  fill(
    c: number,
    out: { index: Float64Array; rollouts: Float64Array; completed: Float64Array; sum: Float64Array },
  ): void {
    const column = this.columns[c]!;
    for (let s = 0; s < this.size; s++) {
      const k = s >>> CHUNK_BITS;
      const j = s & MASK;
      out.index[s] = this.indices[k]![j]!;
      out.rollouts[s] = this.rollouts[k]![j]!;
      out.completed[s] = this.done[k]![j]!;
      out.sum[s] = column.sum(s);
    }
  }

  /** Each task's index, rollouts, completed rollouts, BAS hits and the sum of column `c`, in slot order. */
  *tasks(c: number): Generator<{ index: number; rollouts: number; done: number; hits: number; sum: number }> {
    for (let s = 0; s < this.size; s++) {
      const k = s >>> CHUNK_BITS;
      const j = s & MASK;
      yield {
        index: this.indices[k]![j]!,
        rollouts: this.rollouts[k]![j]!,
        done: this.done[k]![j]!,
        hits: this.hits[k]![j]!,
        sum: this.columns[c]!.sum(s),
      };
    }
  }
}
