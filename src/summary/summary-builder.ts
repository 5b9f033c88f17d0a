/**
 * Builds the summary of a run (summary.ts) from its records, taken one at a time.
 *
 * `SummaryBuilder` keeps running sums, not the records: per column a `Moments` (moments.ts),
 * per task a few counts and sums when rollouts of one task are pooled (task-table.ts), the
 * token sums (token-sums.ts) and one latency per completed rollout for its percentiles
 * (timings.ts). A run of one rollout per task so costs 8 bytes per rollout, whatever its
 * length. It is fed one record per rollout: which line of a results file counts for a rollout
 * (the last) is the run folder's rule, applied by its reader (src/runfile/winners.ts) before
 * records reach here.
 */
import { BAS_LABELS, type BasLabel } from '../task/types.js';
import { histogram, histogramBin, passAtKRows } from './aggregate.js';
import { ErrorMessages } from './error-digest.js';
import { FaultTallies } from './fault-tallies.js';
import { Moments } from './moments.js';
import { noiseSplit, type NoiseSplit } from './noise.js';
import type { Estimate, Scale } from './stats.js';
import { recordedNumber, type Summary, type SummaryRecord } from './summary.js';
import { taskMeanColumns, taskMeanRows, type TaskMeanColumns, type TaskMeans } from './task-means.js';
import { TaskTable } from './task-table.js';
import { Floats, timing } from './timings.js';
import { TokenAccount } from './token-sums.js';

const METRIC_NAMES = ['bas_label_accuracy', 'fault_precision', 'fault_recall', 'num_flagged', 'parsed'] as const;
/** What each metric's values can be: all lie in [0, 1] but the count of claims. */
const METRIC_SCALES: Record<(typeof METRIC_NAMES)[number], Scale> = {
  bas_label_accuracy: 'unit',
  fault_precision: 'unit',
  fault_recall: 'unit',
  num_flagged: 'count',
  parsed: 'unit',
};

// The estimated columns: the rewards, the metrics and the labels of completed rollouts, and
// the reward with an errored rollout counted as 0.
const K_REWARD = 0;
const K_BAS = 1;
const K_AUDIT = 2;
const K_METRIC = 3;
const K_LABEL = K_METRIC + METRIC_NAMES.length;
const K_ZERO = K_LABEL + BAS_LABELS.length;
const K_CONSISTENT = K_ZERO + 1;
const N_COLUMNS = K_CONSISTENT + 1;

export interface SummaryOptions {
  /**
   * Whether rollouts of one task may be pooled (more than one rollout per task): then each
   * task's sums are kept for the clustered error, pass@k and per-task means. A caller that
   * knows every task has one rollout says `false`, and the summary keeps nothing per task.
   */
  perTask?: boolean;
  /**
   * The caller knows no task has more than one rollout (a run of one rollout per task, each
   * pair given once). Then per task only what per-task means need is kept (rollouts,
   * completions, the reward's sum), six doubles a task instead of thirty-two, and every figure
   * is the same: no interval is clustered, and there is no pass@k or noise split, without a
   * task of two rollouts. A second rollout of a task is then an error.
   */
  oneRolloutPerTask?: boolean;
  /**
   * The last task a stopping rule used (`sequential.last_index` of a run its rule stopped):
   * rollouts of later tasks landed after the stop, so their tokens are summed but their scores
   * are not summarised; `counts.after_stop` counts them (SPEC, "A run stopped by its rule").
   */
  lastIndex?: number | null;
}

/** Builds a `Summary` from records streamed one at a time. */
export class SummaryBuilder {
  private rollouts = 0;
  private completedCount = 0;
  private replaced = 0;
  private truncated = 0;
  private readonly columns = Array.from({ length: N_COLUMNS }, () => new Moments());
  private readonly faults = new FaultTallies();
  private readonly histogram = new Float64Array(10);
  private readonly latencies = new Floats();
  private readonly ttfts = new Floats();
  private readonly tokens = new TokenAccount();
  private readonly messages = new ErrorMessages();
  private readonly tasks: TaskTable | null;
  private perTaskRows: TaskMeanColumns | null = null;

  private readonly oneRolloutPerTask: boolean;
  private readonly lastIndex: number | null;
  /** Rollouts past the stopping rule's last task (their tokens paid for, their scores not summarised). */
  private afterStop = 0;

  constructor(options: SummaryOptions = {}) {
    this.oneRolloutPerTask = options.oneRolloutPerTask === true;
    this.lastIndex = options.lastIndex ?? null;
    this.tasks =
      options.perTask === false ? null : new TaskTable(N_COLUMNS, this.oneRolloutPerTask ? [K_REWARD] : undefined);
  }

  /** Adds `x` (when it is a number) to column `k`, and to its task's sums. */
  private push(k: number, x: number, slot: number): void {
    if (x !== x) return; // NaN: not recorded
    const column = this.columns[k]!;
    column.push(x);
    if (this.tasks !== null && this.tasks.add(k, slot, x)) column.repeats = true;
  }

  /** Adds the record of one rollout (each rollout once: the reader has picked its winning line). */
  add(r: SummaryRecord): void {
    if (this.lastIndex !== null && r.index > this.lastIndex) return this.addAfterStop(r);
    this.perTaskRows = null;
    this.rollouts++;
    const slot = this.slotOf(r);
    this.tokens.addRollout(r);
    if (r.error) this.addErrored(r.error, slot);
    else this.addCompleted(r, slot);
  }

  /** The task slot of a record (0 when nothing is kept per task), checking what the options promised. */
  private slotOf(r: SummaryRecord): number {
    if ((r.rollout ?? 0) !== 0 && this.tasks === null) {
      throw new Error(`a summary kept without tasks got rollout ${r.rollout} of task ${r.index}`);
    }
    if (this.tasks === null) return 0;
    const slot = this.tasks.rollout(r.index);
    if (this.oneRolloutPerTask && this.tasks.maxRollouts > 1)
      throw new Error(`a summary of one rollout per task got a second rollout of task ${r.index}`);
    return slot;
  }

  private addErrored(error: NonNullable<SummaryRecord['error']>, slot: number): void {
    this.messages.add(error.type, typeof error.message === 'string' ? error.message : '');
    this.push(K_ZERO, 0, slot);
  }

  private addCompleted(r: SummaryRecord, slot: number): void {
    this.completedCount++;
    if (r.finish_reason === 'length') this.truncated++;
    const latency = recordedNumber(r.latency_ms);
    if (latency === latency) this.latencies.push(latency);
    const ttft = recordedNumber(r.ttft_ms);
    if (ttft === ttft) this.ttfts.push(ttft);
    const reward = recordedNumber(r.reward);
    if (reward === reward) this.histogram[histogramBin(reward)]!++;
    const bas = recordedNumber(r.rewards?.bas_correct);
    this.tasks?.completed(slot, bas === 1);
    this.push(K_REWARD, reward, slot);
    this.push(K_ZERO, reward, slot);
    this.push(K_BAS, bas, slot);
    this.push(K_AUDIT, recordedNumber(r.rewards?.fault_audit), slot);
    const metrics = r.metrics;
    for (let i = 0; i < METRIC_NAMES.length; i++)
      this.push(K_METRIC + i, recordedNumber(metrics?.[METRIC_NAMES[i]!]), slot);
    if (r.detail) this.addDetail(r.detail, slot);
  }

  /** The labels, fault codes and consistency of a completed rollout. */
  private addDetail(detail: NonNullable<SummaryRecord['detail']>, slot: number): void {
    // Plain loops here, not forEach over fresh arrays: this runs once per record of every report.
    const labels = detail.labels;
    for (let i = 0; i < BAS_LABELS.length; i++) {
      const v = labels?.[BAS_LABELS[i]!];
      if (v !== undefined) this.push(K_LABEL + i, v ? 1 : 0, slot);
    }
    this.faults.addCodes(detail);
    const c = detail.consistency;
    const consistent = recordedNumber(c?.bas_consistent);
    if (c && (consistent === 0 || consistent === 1)) {
      this.push(K_CONSISTENT, consistent, slot);
      this.faults.addCauses(c);
    }
  }

  /** A rollout of a task past the stopping rule's last: its tokens were paid, its scores are not summarised. */
  private addAfterStop(r: SummaryRecord): void {
    this.afterStop++;
    this.tokens.addAfterStop(r);
  }

  /**
   * Counts a line of the results file that a later line of its pair replaced (the reader does
   * not summarise it): its tokens were paid for, so they join the token sums.
   */
  addReplaced(r: SummaryRecord): void {
    this.replaced++;
    this.tokens.addReplaced(r);
  }

  /**
   * Per task: the mean reward over its completed rollouts (NaN if none completed) and the
   * mean with errors counted as 0, sorted by index.
   */
  perTask(): readonly TaskMeans[] {
    return taskMeanRows(this.taskMeans());
  }

  /**
   * `perTask` as columns, one entry per task in index order: what compare and the
   * leaderboard pair runs on, without an object per task.
   */
  taskMeans(): TaskMeanColumns {
    if (this.tasks === null) throw new Error('this summary was built without per-task sums');
    // Kept until the next record: a leaderboard pairs each run with several others.
    if (this.perTaskRows !== null) return this.perTaskRows;
    return (this.perTaskRows = taskMeanColumns(this.tasks, K_REWARD));
  }

  private estimate(k: number, scale: Scale = 'unit'): Estimate {
    const tasks = this.tasks;
    const column = tasks?.columns[k] ?? null;
    return this.columns[k]!.estimate(scale, column === null ? undefined : { column, slots: tasks!.size });
  }

  /** The noise split of column `k` over its tasks (noise.ts). */
  private noise(k: number): NoiseSplit | null {
    const tasks = this.tasks;
    const kept = tasks?.columns[k] ?? null;
    if (tasks === null || kept === null) return null;
    // Named again for the generator below, which does not see the check above.
    const column = kept;
    const { sum, squares } = this.columns[k]!.sums();
    function* groups() {
      for (let slot = 0; slot < tasks!.size; slot++) yield { count: column.count(slot), sum: column.sum(slot) };
    }
    return noiseSplit(groups(), sum, squares);
  }

  /** The summary of everything added so far. */
  result(): Summary {
    const labels = {} as Record<BasLabel, Estimate>;
    BAS_LABELS.forEach((l, i) => (labels[l] = this.estimate(K_LABEL + i)));
    const metrics = {} as Summary['metrics'];
    METRIC_NAMES.forEach((m, i) => (metrics[m] = this.estimate(K_METRIC + i, METRIC_SCALES[m])));
    const maxRollouts = this.tasks === null ? Math.min(1, this.rollouts) : this.tasks.maxRollouts;
    return {
      counts: this.counts(maxRollouts),
      errors: this.messages.digest(),
      truncated: this.truncated,
      reward: this.estimate(K_REWARD),
      reward_errors_as_zero: this.estimate(K_ZERO),
      rewards: { bas_correct: this.estimate(K_BAS), fault_audit: this.estimate(K_AUDIT) },
      metrics,
      labels,
      ...this.faults.codeFigures(),
      consistency: {
        n: this.columns[K_CONSISTENT]!.n,
        bas_consistent: this.estimate(K_CONSISTENT),
        ...this.faults.causeFigures(),
      },
      tokens: this.tokens.figures(),
      latency_ms: timing(this.latencies.sorted()),
      ttft_ms: timing(this.ttfts.sorted()),
      pass_at_k: maxRollouts > 1 ? passAtKRows(this.passTasks(), maxRollouts) : [],
      noise: maxRollouts > 1 ? this.noise(K_REWARD) : null,
      reward_histogram: histogram(this.histogram),
    };
  }

  private counts(maxRollouts: number): Summary['counts'] {
    return {
      // Every line is one of these: a winner, a line replaced, or one past the rule's stop.
      lines: this.rollouts + this.replaced + this.afterStop,
      replaced: this.replaced,
      rollouts: this.rollouts,
      tasks: this.tasks === null ? this.rollouts : this.tasks.size,
      max_rollouts: maxRollouts,
      completed: this.completedCount,
      errored: this.rollouts - this.completedCount,
      errors_by_type: this.messages.countsByType(),
      ...(this.afterStop > 0 ? { after_stop: this.afterStop } : {}),
    };
  }

  /** Each task's rollouts and BAS hits, for pass@k. */
  private passTasks(): Map<number, { n: number; c: number }> {
    const passTasks = new Map<number, { n: number; c: number }>();
    if (this.tasks !== null)
      for (const t of this.tasks.tasks(K_REWARD)) passTasks.set(t.index, { n: t.rollouts, c: t.hits });
    return passTasks;
  }
}
