/**
 * Each task's mean reward, over its completed rollouts and with errors counted as 0: what
 * pairing runs task by task (compare, the leaderboard) reads of a run's summary.
 */
import type { TaskTable } from './task-table.js';

/** One task's mean reward (NaN when no rollout completed) and its mean with errors as 0. */
export interface TaskMeans {
  index: number;
  rollouts: number;
  completed: number;
  reward: number;
  rewardZero: number;
}

/** `TaskMeans` as columns: entry i of each array is the i-th task in index order. */
export interface TaskMeanColumns {
  length: number;
  index: Float64Array;
  rollouts: Float64Array;
  completed: Float64Array;
  /** The mean reward over completed rollouts; NaN when none completed. */
  reward: Float64Array;
  /** The mean reward with errored rollouts counted as 0. */
  rewardZero: Float64Array;
}

/** The columns as one object per task. */
export function taskMeanRows(t: TaskMeanColumns): TaskMeans[] {
  return Array.from({ length: t.length }, (_, i) => ({
    index: t.index[i]!,
    rollouts: t.rollouts[i]!,
    completed: t.completed[i]!,
    reward: t.reward[i]!,
    rewardZero: t.rewardZero[i]!,
  }));
}

/** What pairing runs task by task reads of a run's summary: its per-task means, as columns or rows. */
export interface TaskMeansSource {
  taskMeans(): TaskMeanColumns;
  perTask(): readonly TaskMeans[];
}

/** The means of column `k` (the reward) of each task in `tasks`, as columns in index order. */
export function taskMeanColumns(tasks: TaskTable, k: number): TaskMeanColumns {
  const size = tasks.size;
  const raw = {
    index: new Float64Array(size),
    rollouts: new Float64Array(size),
    completed: new Float64Array(size),
    sum: new Float64Array(size),
  };
  tasks.fill(k, raw);
  let order: ArrayLike<number> | null = null;
  for (let i = 1; i < size && order === null; i++)
    if (raw.index[i]! < raw.index[i - 1]!)
      order = Array.from(raw.index.keys()).sort((a, b) => raw.index[a]! - raw.index[b]!);
  const out: TaskMeanColumns = {
    length: size,
    index: new Float64Array(size),
    rollouts: new Float64Array(size),
    completed: new Float64Array(size),
    reward: new Float64Array(size),
    rewardZero: new Float64Array(size),
  };
  for (let i = 0; i < size; i++) {
    const s = order === null ? i : order[i]!;
    const done = raw.completed[s]!;
    out.index[i] = raw.index[s]!;
    out.rollouts[i] = raw.rollouts[s]!;
    out.completed[i] = done;
    out.reward[i] = done ? raw.sum[s]! / done : Number.NaN;
    out.rewardZero[i] = raw.sum[s]! / raw.rollouts[s]!;
  }
  return out;
}
