/**
 * The summary of a run, as run.json keeps it and every report shows it: counts, every reward
 * and metric with its interval, per-label and per-code breakdowns, tokens, latency, pass@k
 * and the reward's distribution; and `SummaryRecord`, what it reads of one rollout's record.
 *
 * The summary is built by `SummaryBuilder` (summary-builder.ts). This layer sits below the run
 * folder and imports nothing of it: `SummaryRecord` is the shape it reads, which a run
 * folder's record satisfies.
 */
import type { BasLabel, FaultCode, Scores } from '../task/types.js';
import type { HistogramBin, PassAtKRow, PooledFaults } from './aggregate.js';
import type { Unreported } from './billed.js';
import type { ErrorDigest } from './error-digest.js';
import type { NoiseSplit } from './noise.js';
import type { Estimate } from './stats.js';

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

/** A number a record holds, or NaN when it holds none there (missing, or not a finite number). */
export function recordedNumber(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : Number.NaN;
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

/** Token sums over some lines, and how many of those lines reported usage. */
export interface TokenSums {
  prompt: number;
  completion: number;
  total: number;
  reasoning: number;
  cached: number;
  lines: number;
}
