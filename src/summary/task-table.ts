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

/** A growable column of numbers in chunks of CHUNK doubles: a task's number reads back exactly as set. */
class Column {
  private readonly chunks: Float64Array[] = [];

  grow(): void {
    this.chunks.push(new Float64Array(CHUNK));
  }

  get(slot: number): number {
    return this.chunks[slot >>> CHUNK_BITS]![slot & MASK]!;
  }

  set(slot: number, x: number): void {
    this.chunks[slot >>> CHUNK_BITS]![slot & MASK] = x;
  }

  /** Adds one to the number in `slot`; returns the new count. */
  increment(slot: number): number {
    return ++this.chunks[slot >>> CHUNK_BITS]![slot & MASK]!;
  }
}

/**
 * One column's per-task sums, exact: each slot holds its sum as two doubles, the rounded sum
 * and what rounding left out (so `sum` is the exact sum rounded once, whatever the order of
 * the task's values), and a slot whose exact sum two doubles cannot hold (values of very
 * different sizes) moves to a CompensatedSum of its own. What rounding left out is nearly
 * always 0, so its chunk of doubles is made only when some slot of it needs one.
 */
class ExactTaskColumn implements TaskColumn {
  private readonly highs = new Column();
  private readonly lows: Array<Float64Array | null> = [];
  private readonly counts = new Column();
  private readonly wide = new Map<number, CompensatedSum>();

  grow(): void {
    this.highs.grow();
    this.lows.push(null);
    this.counts.grow();
  }

  private low(slot: number): number {
    return this.lows[slot >>> CHUNK_BITS]?.[slot & MASK] ?? 0;
  }

  private setLow(slot: number, x: number): void {
    const k = slot >>> CHUNK_BITS;
    if (x === 0 && this.lows[k] === null) return;
    (this.lows[k] ??= new Float64Array(CHUNK))[slot & MASK] = x;
  }

  /** Adds `x` to the task in `slot`; returns how many values it now holds. */
  add(slot: number, x: number): number {
    const wide = this.wide.get(slot);
    if (wide !== undefined) wide.add(x);
    else {
      const a = this.highs.get(slot);
      const b = this.low(slot);
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
        this.highs.set(slot, u);
        this.setLow(slot, s - (u - uv) + (t - uv));
      }
    }
    return this.counts.increment(slot);
  }

  sum(slot: number): number {
    return this.wide.get(slot)?.value ?? this.highs.get(slot);
  }

  count(slot: number): number {
    return this.counts.get(slot);
  }
}

/** Task indices below this find their slot in an array (4 bytes each), larger ones in a map. */
const DENSE_INDICES = 1 << 24;

export class TaskTable {
  /** Slot + 1 of each task index below DENSE_INDICES (0: none yet), grown as indices come. */
  private denseSlots = new Int32Array(0);
  private readonly slotOf = new Map<number, number>();
  private readonly indices = new Column();
  private readonly rollouts = new Column();
  private readonly done = new Column();
  private readonly hits = new Column();
  /** Chunks made so far (each of CHUNK slots). */
  private chunks = 0;
  /** Per estimated column its per-task sums; null for a column not kept per task. */
  readonly columns: Array<ExactTaskColumn | null>;
  size = 0;
  maxRollouts = 0;

  /** `kept` (all when not given) are the columns whose per-task sums are kept. */
  constructor(columns: number, kept?: readonly number[]) {
    this.columns = Array.from({ length: columns }, (_, k) =>
      kept === undefined || kept.includes(k) ? new ExactTaskColumn() : null,
    );
  }

  /** The slot of task `index`, made on first sight; counts one more rollout of it. */
  rollout(index: number): number {
    let s = this.slotOfIndex(index);
    if (s === undefined) {
      s = this.size++;
      this.setSlot(index, s);
      if (s >>> CHUNK_BITS >= this.chunks) {
        this.chunks++;
        for (const c of [this.indices, this.rollouts, this.done, this.hits, ...this.columns]) c?.grow();
      }
      this.indices.set(s, index);
    }
    const n = this.rollouts.increment(s);
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
    this.done.increment(slot);
    if (hit) this.hits.increment(slot);
  }

  /** Adds `x` to column `c` of the task in `slot`; true when that task now holds two values or more. */
  add(c: number, slot: number, x: number): boolean {
    const column = this.columns[c];
    return column ? column.add(slot, x) >= 2 : false;
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
    const column = this.columns[c];
    for (let s = 0; s < this.size; s++) {
      out.index[s] = this.indices.get(s);
      out.rollouts[s] = this.rollouts.get(s);
      out.completed[s] = this.done.get(s);
      out.sum[s] = column ? column.sum(s) : Number.NaN;
    }
  }

  /** Each task's index, rollouts, completed rollouts, BAS hits and the sum of column `c`, in slot order. */
  *tasks(c: number): Generator<{ index: number; rollouts: number; done: number; hits: number; sum: number }> {
    for (let s = 0; s < this.size; s++) {
      yield {
        index: this.indices.get(s),
        rollouts: this.rollouts.get(s),
        done: this.done.get(s),
        hits: this.hits.get(s),
        sum: this.columns[c]?.sum(s) ?? Number.NaN,
      };
    }
  }
}
