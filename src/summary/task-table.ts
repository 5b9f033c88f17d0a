/**
 * What a summary keeps per task when rollouts of one task are pooled: how many rollouts, how
 * many completed and how many got the BAS right (pass@k), and per estimated column the sum and
 * count of its values (the cluster-robust standard error and compare's per-task means). Slots
 * live in fixed typed-array chunks and a task index finds its slot through one map, so a
 * sharded run's strided indices cost no more than a whole run's.
 */
import type { TaskColumn } from './moments.js';

const CHUNK_BITS = 10;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

export class TaskTable {
  private readonly slotOf = new Map<number, number>();
  private readonly indices: Float64Array[] = [];
  private readonly rollouts: Uint16Array[] = [];
  private readonly done: Uint16Array[] = [];
  private readonly hits: Uint16Array[] = [];
  readonly columns: TaskColumn[];
  size = 0;
  maxRollouts = 0;
  readonly chunkBits = CHUNK_BITS;

  constructor(columns: number) {
    this.columns = Array.from({ length: columns }, () => ({ sums: [], counts: [] }));
  }

  /** The slot of task `index`, made on first sight; counts one more rollout of it. */
  rollout(index: number): number {
    let s = this.slotOf.get(index);
    if (s === undefined) {
      s = this.size++;
      this.slotOf.set(index, s);
      if (s >>> CHUNK_BITS >= this.indices.length) {
        this.indices.push(new Float64Array(CHUNK));
        this.rollouts.push(new Uint16Array(CHUNK));
        this.done.push(new Uint16Array(CHUNK));
        this.hits.push(new Uint16Array(CHUNK));
        for (const c of this.columns) {
          c.sums.push(new Float64Array(CHUNK));
          c.counts.push(new Uint16Array(CHUNK));
        }
      }
      this.indices[s >>> CHUNK_BITS]![s & MASK] = index;
    }
    const n = ++this.rollouts[s >>> CHUNK_BITS]![s & MASK]!;
    if (n > this.maxRollouts) this.maxRollouts = n;
    return s;
  }

  /** Marks one rollout of the task in `slot` completed, and whether it got the BAS right. */
  completed(slot: number, hit: boolean): void {
    this.done[slot >>> CHUNK_BITS]![slot & MASK]!++;
    if (hit) this.hits[slot >>> CHUNK_BITS]![slot & MASK]!++;
  }

  /** Adds `x` to column `c` of the task in `slot`; true when that task now holds two values or more. */
  add(c: number, slot: number, x: number): boolean {
    const col = this.columns[c]!;
    col.sums[slot >>> CHUNK_BITS]![slot & MASK]! += x;
    return ++col.counts[slot >>> CHUNK_BITS]![slot & MASK]! >= 2;
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
        sum: this.columns[c]!.sums[k]![j]!,
      };
    }
  }
}
