/**
 * The summary of a run: counts, every reward and metric with its interval, per-label and
 * per-code breakdowns, tokens, latency, pass@k and the reward's distribution.
 *
 * `SummaryBuilder` takes records one at a time and keeps running sums, not the records: per
 * column a `Moments` (moments.ts), per task a few counts and sums when rollouts of one task are
 * pooled (task-table.ts), and one latency per completed rollout for its percentiles. A run of
 * one rollout per task so costs 8 bytes per rollout, whatever its length. It is fed one
 * record per rollout: which line of a results file counts for a rollout (the last) is the run
 * folder's rule, applied by its reader (src/runfile/winners.ts) before records reach here.
 * This layer sits below the run folder and imports nothing of it: `SummaryRecord` is the
 * shape it reads, which a run folder's record satisfies.
 */
import { BAS_LABELS, FAULT_CODES, type BasLabel, type FaultCode, type Scores } from '../task/types.js';
import {
  histogram,
  histogramBin,
  passAtKRows,
  pooledFaults,
  type HistogramBin,
  type PassAtKRow,
  type PooledFaults,
} from './aggregate.js';
import { MAX_TOKENS, tokensBeyond, type Unreported } from './billed.js';
import { ErrorMessages, type ErrorDigest } from './error-digest.js';
import { Moments } from './moments.js';
import { noiseSplit, type NoiseSplit } from './noise.js';
import { percentileSorted, type Estimate, type Scale } from './stats.js';
import { TaskTable } from './task-table.js';

/** What the summary reads of one rollout's record (a results.jsonl line has these fields and more). */
export interface SummaryRecord {
  index: number;
  rollout?: number;
  reward: number | null;
  rewards: Partial<Scores['rewards']> | null;
  metrics: Partial<Scores['metrics']> | null;
  detail?: {
    labels?: Partial<Record<BasLabel, boolean>>;
    codes?: Partial<Record<FaultCode, { tp?: number; fp?: number; fn?: number }>>;
    unknown_codes?: number;
    /** Absent from records of bas 0.4 and earlier, and from unparseable replies. */
    consistency?: {
      bas_consistent?: number;
      bas_error?: string | null;
      labels?: Partial<Record<BasLabel, string | null>>;
    } | null;
  } | null;
  error: { type: string; message?: unknown } | null;
  latency_ms?: number | null;
  ttft_ms?: number | null;
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    total_tokens?: number | null;
    reasoning_tokens?: number | null;
    cached_tokens?: number | null;
  } | null;
  finish_reason?: string | null;
  /** A reply from the response cache (`--cache`): its usage was paid for by an earlier run. */
  cached?: boolean;
}

interface CodeBreakdown {
  tp: number;
  fp: number;
  fn: number;
  /** Pooled over rollouts: tp / (tp + fp); null when nothing was claimed. */
  precision: number | null;
  /** Pooled over rollouts: tp / (tp + fn); null when the keys held none of this code. */
  recall: number | null;
}

/** Wrong BAS (or wrong labels) by where the error comes from (task/implied.ts). */
export interface CauseCounts {
  /** The reply stated what its own faults imply, and those are wrong. */
  audit: number;
  /** Its own faults imply the key's figures, and it stated others. */
  arithmetic: number;
  /** Neither. */
  both: number;
}

/** The stated BAS against the one each reply's own faults imply (docs/benchmark.md). */
export interface ConsistencySummary {
  /**
   * Completed, parsed rollouts whose record holds the split: records written before bas 0.4.1
   * (and replies graded without their ledger) have none, and are left out of all of this.
   */
  n: number;
  /** Share of those whose four stated labels equal what their own faults imply. */
  bas_consistent: Estimate;
  /** Of those, the ones with a wrong BAS, by cause. */
  bas_errors: CauseCounts;
  /** Of those, each wrong label by cause. */
  labels: Record<BasLabel, CauseCounts>;
}

export interface Summary {
  counts: {
    /** Lines read, including ones later superseded. */
    lines: number;
    /** Lines that repeated an earlier (index, rollout) and replaced it. */
    replaced: number;
    /** Distinct (index, rollout) pairs. */
    rollouts: number;
    /** Distinct task indices. */
    tasks: number;
    /** Highest number of rollouts seen for one task. */
    max_rollouts: number;
    completed: number;
    errored: number;
    /** Errored rollouts per type (an object without a prototype: a type is outside text). */
    errors_by_type: Record<string, number>;
    /**
     * Rollouts of tasks past the last one a stopping rule used: they landed after the stop, are
     * kept in results.jsonl and counted in tokens, and are in no other figure (since 0.4.1).
     */
    after_stop?: number;
  };
  /** Per error type, most frequent first: the commonest messages with a count and one example. */
  errors: ErrorDigest[];
  /** Completed rollouts whose reply was cut by the token limit (`finish_reason: "length"`). */
  truncated: number;
  /** Over completed rollouts. */
  reward: Estimate;
  /** Over all rollouts, an errored one counting 0. */
  reward_errors_as_zero: Estimate;
  rewards: Record<keyof Scores['rewards'], Estimate>;
  metrics: Record<keyof Scores['metrics'], Estimate>;
  /** Share of completed rollouts that got each label right. */
  labels: Record<BasLabel, Estimate>;
  codes: Record<FaultCode, CodeBreakdown>;
  /** Claimed pairs whose code is none of the five. */
  unknown_codes: number;
  /** The fault breakdown over all codes together (see `PooledFaults`). */
  faults_pooled: PooledFaults;
  /** Whether each stated BAS is the one its own faults imply, and why wrong ones are wrong (since 0.4.1). */
  consistency: ConsistencySummary;
  /**
   * Summed over every line that reported usage: errored rollouts included, and lines a later
   * line for the same rollout replaced (a resume re-running errored rollouts) too, since every
   * one of them was paid for.
   */
  tokens: {
    prompt: number;
    completion: number;
    total: number;
    /** Part of the completion tokens spent reasoning, where the endpoint reports it. */
    reasoning: number;
    /** Part of the prompt tokens served from the provider's cache, where it reports it. */
    cached: number;
    rollouts_with_usage: number;
    /** Token counts left out because they were negative, fractional or absurd. */
    ignored: number;
    /** Of the sums above, the tokens that bought no score: errored rollouts' and replaced lines', and `unrecorded`. */
    unscored: TokenSums;
    /**
     * Of the sums above, what responses reported for rollouts that were never recorded (a stop
     * abandoned them, or their refusal stopped the run): run.json keeps it per session (since 0.4.1).
     */
    unrecorded: TokenSums;
    /**
     * Requests in flight when the run (any of its sessions) stopped: their replies were never
     * read, so the sums above are a lower bound, by at most `prompt` and `completion` tokens
     * (their worst case; completion null when nothing bounded it). Since 0.4.1.
     */
    in_flight: InFlight;
    /**
     * Rollouts answered from the response cache (`--cache`, since 0.4.1) and the tokens their
     * replies used when first received: not in the sums above, since this run paid nothing for
     * them. Absent when there were none.
     */
    from_cache?: TokenSums & { rollouts: number };
    /**
     * Of `completion`, the tokens replies billed in `total_tokens` beyond prompt + completion
     * (reasoning billed outside `completion_tokens`, billed.ts). Since 0.4.1; absent before.
     */
    beyond_completion?: number;
    /**
     * Requests billed whose usage is unknown (a 200 without usage, a reply lost on its way), with
     * the worst case the budget charged each: the sums above leave them out, so they are a lower
     * bound. run.json keeps it per session (since 0.4.1; absent before).
     */
    unreported?: Unreported;
  };
  /** Over completed rollouts that recorded a latency. */
  latency_ms: { n: number; mean: number | null; p50: number | null; p95: number | null };
  /** Time to first token, over completed rollouts that recorded one (streamed replies, `--stream`). */
  ttft_ms: { n: number; mean: number | null; p50: number | null; p95: number | null };
  /** Empty unless some task has more than one rollout. */
  pass_at_k: PassAtKRow[];
  /**
   * The reward's variance split into prediction noise (within a task) and data noise (between
   * tasks), and the rollouts per task that narrow the interval most for the same requests;
   * null unless some task has two completed rollouts (since 0.4.1; noise.ts).
   */
  noise?: NoiseSplit | null;
  /** Completed rewards in ten bins of width 0.1; the last bin includes 1.0. */
  reward_histogram: HistogramBin[];
}

/** Requests abandoned in flight, and the most they may have cost in tokens. */
export interface InFlight {
  requests: number;
  prompt: number;
  completion: number | null;
}

/** What a run spent beside its records, as run.json's sessions keep it. */
export interface SpendBeside {
  unrecorded: TokenSums;
  in_flight: InFlight;
  /** Requests billed without usage, charged at their worst case (since 0.4.1; absent before). */
  unreported?: Unreported;
}

/**
 * `summary` with what the run spent beside its records added: the usage of unrecorded
 * rollouts joins the token sums (and the part that bought no score), the requests abandoned
 * in flight are said apart. The summary of the records alone cannot know them.
 */
export function withSpend(summary: Summary, spend: SpendBeside): Summary {
  const t = summary.tokens;
  const u = spend.unrecorded;
  const add = (a: TokenSums): TokenSums => ({
    prompt: a.prompt + u.prompt,
    completion: a.completion + u.completion,
    total: a.total + u.total,
    reasoning: a.reasoning + u.reasoning,
    cached: a.cached + u.cached,
    lines: a.lines + u.lines,
  });
  return {
    ...summary,
    tokens: {
      ...t,
      prompt: t.prompt + u.prompt,
      completion: t.completion + u.completion,
      total: t.total + u.total,
      reasoning: t.reasoning + u.reasoning,
      cached: t.cached + u.cached,
      unscored: add(t.unscored),
      unrecorded: { ...u },
      in_flight: { ...spend.in_flight },
      unreported: { ...(spend.unreported ?? { requests: 0, prompt: 0, completion: 0 }) },
    },
  };
}

/** Token sums over some lines, and how many of those lines reported usage. */
export interface TokenSums {
  prompt: number;
  completion: number;
  total: number;
  reasoning: number;
  cached: number;
  lines: number;
}

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
const CAUSES = ['audit', 'arithmetic', 'both'] as const;
/** prompt, completion, total, reasoning, cached, and the completion tokens billed beyond them (billed.ts). */
const N_TOK = 6;

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : Number.NaN;
}

/** A token count as recorded, or NaN: only whole numbers from 0 to MAX_TOKENS count. */
function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKENS ? v : Number.NaN;
}

/** Token sums over some lines (prompt … cached), with how many lines gave each count. */
class TokenTotals {
  readonly sums = new Float64Array(N_TOK);
  readonly seen = new Float64Array(N_TOK);

  /**
   * Adds a line's counts; returns how many of them were unusable. A line whose total is
   * missing or unusable adds what its usable prompt and completion counts add up to: a
   * reply's absurd completion count (and so its total) once left the total at 0 beneath
   * 13,513 prompt tokens. What was left out is said beside the sums (`ignored`: billed.ts).
   */
  add(u: SummaryRecord['usage']): number {
    if (!u) return 0;
    const bad =
      this.count(0, u.prompt_tokens) +
      this.count(1, u.completion_tokens) +
      this.count(2, u.total_tokens) +
      this.count(3, u.reasoning_tokens) +
      this.count(4, u.cached_tokens) +
      this.beyond(u);
    if (Number.isNaN(tokenCount(u.total_tokens))) {
      const part = (v: unknown): number => (Number.isNaN(tokenCount(v)) ? 0 : tokenCount(v));
      this.sums[2]! += part(u.prompt_tokens) + part(u.completion_tokens);
    }
    return bad;
  }

  /** total_tokens beyond prompt + completion: billed (reasoning outside completion_tokens), counted as completion. */
  private beyond(u: NonNullable<SummaryRecord['usage']>): number {
    const extra = tokensBeyond(u);
    this.sums[1]! += extra;
    this.sums[5]! += extra;
    return 0;
  }

  /** Adds count `i` of a line; 1 when it was there but unusable, else 0. */
  private count(i: number, v: unknown): number {
    const n = tokenCount(v);
    if (n === n) {
      this.sums[i]! += n;
      this.seen[i]!++;
      return 0;
    }
    return v != null ? 1 : 0;
  }

  /** Lines that reported usage: the most lines any one count came from. */
  lines(): number {
    return Math.max(this.seen[0]!, this.seen[1]!, this.seen[2]!);
  }
}

/**
 * A growable list of numbers in one typed array: 4 bytes a number while every number is a
 * whole one from 0 to 2^32 - 1 (bas records latencies in whole milliseconds), 8 bytes once
 * any other has come (a results file written by something else). A -0 is kept as 0 in
 * either width, so the column's values do not depend on when it grew.
 */
class Floats {
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
function taskMeanRows(t: TaskMeanColumns): TaskMeans[] {
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
  private lines = 0;
  private replaced = 0;
  private truncated = 0;
  private ignoredTokens = 0;
  private unknownCodes = 0;
  private readonly columns = Array.from({ length: N_COLUMNS }, () => new Moments());
  private readonly codeCounts = new Float64Array(3 * FAULT_CODES.length);
  /** Wrong BAS by cause, then each label's wrong figures by cause (CAUSES order). */
  private readonly causeCounts = new Float64Array(CAUSES.length * (1 + BAS_LABELS.length));
  private readonly histogram = new Float64Array(10);
  private readonly latencies = new Floats();
  private readonly ttfts = new Floats();
  private readonly tokens = new TokenTotals();
  private readonly erroredTokens = new TokenTotals();
  private readonly replacedTokens = new TokenTotals();
  /** Rollouts answered from the response cache, and their original usage. */
  private readonly cachedTokens = new TokenTotals();
  private cachedRollouts = 0;
  /** Errored rollouts per type (no prototype: a type is outside text). */
  private readonly errorsByType: Record<string, number> = Object.create(null) as Record<string, number>;
  private readonly messages = new ErrorMessages();
  private readonly tasks: TaskTable | null;
  private perTaskRows: TaskMeanColumns | null = null;

  private readonly oneRolloutPerTask: boolean;
  private readonly lastIndex: number | null;
  /** Rollouts past the stopping rule's last task, and their tokens (paid for, not summarised). */
  private afterStop = 0;
  private readonly afterStopTokens = new TokenTotals();

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
    this.lines++;
    this.rollouts++;
    const slot = this.slotOf(r);
    // A cached reply cost this run nothing: its tokens are kept apart, never in what was paid.
    const cached = r.cached === true && !r.error;
    if (cached) this.cachedRollouts++;
    this.ignoredTokens += (cached ? this.cachedTokens : this.tokens).add(r.usage);
    if (r.error) this.addErrored(r.error, r.usage, slot);
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

  private addErrored(error: NonNullable<SummaryRecord['error']>, usage: SummaryRecord['usage'], slot: number): void {
    this.erroredTokens.add(usage);
    this.errorsByType[error.type] = (this.errorsByType[error.type] ?? 0) + 1;
    this.messages.add(error.type, typeof error.message === 'string' ? error.message : '');
    this.push(K_ZERO, 0, slot);
  }

  private addCompleted(r: SummaryRecord, slot: number): void {
    this.completedCount++;
    if (r.finish_reason === 'length') this.truncated++;
    const latency = num(r.latency_ms);
    if (latency === latency) this.latencies.push(latency);
    const ttft = num(r.ttft_ms);
    if (ttft === ttft) this.ttfts.push(ttft);
    const reward = num(r.reward);
    if (reward === reward) this.histogram[histogramBin(reward)]!++;
    const bas = num(r.rewards?.bas_correct);
    this.tasks?.completed(slot, bas === 1);
    this.push(K_REWARD, reward, slot);
    this.push(K_ZERO, reward, slot);
    this.push(K_BAS, bas, slot);
    this.push(K_AUDIT, num(r.rewards?.fault_audit), slot);
    const metrics = r.metrics;
    for (let i = 0; i < METRIC_NAMES.length; i++) this.push(K_METRIC + i, num(metrics?.[METRIC_NAMES[i]!]), slot);
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
    const codes = detail.codes;
    if (codes)
      for (let i = 0; i < FAULT_CODES.length; i++) {
        const pc = codes[FAULT_CODES[i]!];
        if (!pc) continue;
        const tp = num(pc.tp);
        if (tp === tp) this.codeCounts[3 * i]! += tp;
        const fp = num(pc.fp);
        if (fp === fp) this.codeCounts[3 * i + 1]! += fp;
        const fn = num(pc.fn);
        if (fn === fn) this.codeCounts[3 * i + 2]! += fn;
      }
    const unknown = num(detail.unknown_codes);
    if (unknown === unknown) this.unknownCodes += unknown;
    const c = detail.consistency;
    const consistent = num(c?.bas_consistent);
    if (c && (consistent === 0 || consistent === 1)) {
      this.push(K_CONSISTENT, consistent, slot);
      this.countCause(0, c.bas_error);
      for (let i = 0; i < BAS_LABELS.length; i++) this.countCause(1 + i, c.labels?.[BAS_LABELS[i]!]);
    }
  }

  /** Counts a cause (one of CAUSES; anything else, a right figure included, counts nothing) in row `at`. */
  private countCause(at: number, cause: unknown): void {
    const i = CAUSES.indexOf(cause as (typeof CAUSES)[number]);
    if (i >= 0) this.causeCounts[CAUSES.length * at + i]!++;
  }

  /** Row `at` of the cause counts. */
  private causes(at: number): CauseCounts {
    const [audit, arithmetic, both] = this.causeCounts.subarray(CAUSES.length * at, CAUSES.length * (at + 1));
    return { audit: audit!, arithmetic: arithmetic!, both: both! };
  }

  /** A rollout of a task past the stopping rule's last: its tokens were paid, its scores are not summarised. */
  private addAfterStop(r: SummaryRecord): void {
    this.lines++;
    this.afterStop++;
    if (r.cached === true && !r.error) return;
    this.ignoredTokens += this.afterStopTokens.add(r.usage);
  }

  /**
   * Counts a line of the results file that a later line of its pair replaced (the reader does
   * not summarise it): its tokens were paid for, so they join the token sums.
   */
  addReplaced(r: SummaryRecord): void {
    this.lines++;
    this.replaced++;
    // A replaced line answered from the cache was not paid for by this run either.
    if (r.cached === true && !r.error) return;
    this.ignoredTokens += this.replacedTokens.add(r.usage);
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
    const size = this.tasks.size;
    const raw = {
      index: new Float64Array(size),
      rollouts: new Float64Array(size),
      completed: new Float64Array(size),
      sum: new Float64Array(size),
    };
    this.tasks.fill(K_REWARD, raw);
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
    return (this.perTaskRows = out);
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
    const column = kept;
    const { sum, squares } = this.columns[k]!.sums();
    function* groups() {
      for (let slot = 0; slot < tasks!.size; slot++) yield { count: column.count(slot), sum: column.sum(slot) };
    }
    return noiseSplit(groups(), sum, squares);
  }

  /** Token sums over winning lines (all, or the errored ones) and the replaced lines. */
  private tokenSums(winners: TokenTotals): TokenSums {
    const [w, r] = [winners.sums, this.replacedTokens.sums];
    return {
      prompt: w[0]! + r[0]!,
      completion: w[1]! + r[1]!,
      total: w[2]! + r[2]!,
      reasoning: w[3]! + r[3]!,
      cached: w[4]! + r[4]!,
      lines: winners.lines() + this.replacedTokens.lines(),
    };
  }

  /** The rollouts answered from the cache, with their replies' original token sums. */
  private fromCache(): TokenSums & { rollouts: number } {
    const c = this.cachedTokens.sums;
    return {
      rollouts: this.cachedRollouts,
      prompt: c[0]!,
      completion: c[1]!,
      total: c[2]!,
      reasoning: c[3]!,
      cached: c[4]!,
      lines: this.cachedTokens.lines(),
    };
  }

  /** Errored rollouts per type, commonest first (ties by type): the same whatever order they came in. */
  private errorsByTypeSorted(): Record<string, number> {
    const types = Object.keys(this.errorsByType).sort((a, b) => {
      const d = this.errorsByType[b]! - this.errorsByType[a]!;
      return d !== 0 ? d : a < b ? -1 : a > b ? 1 : 0;
    });
    const out = Object.create(null) as Record<string, number>;
    for (const t of types) out[t] = this.errorsByType[t]!;
    return out;
  }

  /** The summary of everything added so far. */
  result(): Summary {
    const codes = this.codeBreakdowns();
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
      codes,
      unknown_codes: this.unknownCodes,
      faults_pooled: pooledFaults(Object.values(codes), this.unknownCodes),
      consistency: {
        n: this.columns[K_CONSISTENT]!.n,
        bas_consistent: this.estimate(K_CONSISTENT),
        bas_errors: this.causes(0),
        labels: Object.fromEntries(BAS_LABELS.map((l, i) => [l, this.causes(1 + i)])) as Record<BasLabel, CauseCounts>,
      },
      tokens: this.tokenFigures(),
      latency_ms: timing(this.latencies.sorted()),
      ttft_ms: timing(this.ttfts.sorted()),
      pass_at_k: maxRollouts > 1 ? passAtKRows(this.passTasks(), maxRollouts) : [],
      noise: maxRollouts > 1 ? this.noise(K_REWARD) : null,
      reward_histogram: histogram(this.histogram),
    };
  }

  private codeBreakdowns(): Record<FaultCode, CodeBreakdown> {
    const codes = {} as Record<FaultCode, CodeBreakdown>;
    FAULT_CODES.forEach((code, i) => {
      const [tp, fp, fn] = [this.codeCounts[3 * i]!, this.codeCounts[3 * i + 1]!, this.codeCounts[3 * i + 2]!];
      codes[code] = { tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : null, recall: tp + fn ? tp / (tp + fn) : null };
    });
    return codes;
  }

  private counts(maxRollouts: number): Summary['counts'] {
    return {
      lines: this.lines,
      replaced: this.replaced,
      rollouts: this.rollouts,
      tasks: this.tasks === null ? this.rollouts : this.tasks.size,
      max_rollouts: maxRollouts,
      completed: this.completedCount,
      errored: this.rollouts - this.completedCount,
      errors_by_type: this.errorsByTypeSorted(),
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

  private tokenFigures(): Summary['tokens'] {
    const all = this.tokenSums(this.tokens);
    // Rollouts that landed after the rule's stop were paid for: in the sums, not in `unscored`.
    const late = this.afterStopTokens.sums;
    all.prompt += late[0]!;
    all.completion += late[1]!;
    all.total += late[2]!;
    all.reasoning += late[3]!;
    all.cached += late[4]!;
    return {
      prompt: all.prompt,
      completion: all.completion,
      total: all.total,
      reasoning: all.reasoning,
      cached: all.cached,
      rollouts_with_usage: this.tokens.lines(),
      ignored: this.ignoredTokens,
      unscored: this.tokenSums(this.erroredTokens),
      unrecorded: { prompt: 0, completion: 0, total: 0, reasoning: 0, cached: 0, lines: 0 },
      in_flight: { requests: 0, prompt: 0, completion: 0 },
      ...(this.cachedRollouts > 0 ? { from_cache: this.fromCache() } : {}),
      beyond_completion: this.tokens.sums[5]! + this.replacedTokens.sums[5]! + late[5]!,
      unreported: { requests: 0, prompt: 0, completion: 0 },
    };
  }
}

/** Mean and percentiles of sorted times. */
function timing(sorted: Float64Array): Summary['latency_ms'] {
  return {
    n: sorted.length,
    mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null,
    p50: percentileSorted(sorted, 0.5),
    p95: percentileSorted(sorted, 0.95),
  };
}

/** Summary of a finite list of records, one per rollout. */
export function summarize(records: Iterable<SummaryRecord>): Summary {
  const b = new SummaryBuilder();
  for (const r of records) b.add(r);
  return b.result();
}
