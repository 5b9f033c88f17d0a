/**
 * The summary of a run: counts, every reward and metric with its interval, per-label and
 * per-code breakdowns, tokens, latency, pass@k and the reward's distribution.
 *
 * `SummaryBuilder` takes records one at a time and keeps 35 plain numbers per rollout in
 * Float64Array chunks, so 100,000 rollouts cost about 30 MB and no objects. It is fed one
 * record per rollout: which line of a results file counts for a rollout (the last) is the run
 * folder's rule, applied by its reader (src/runfile/winners.ts) before records reach here.
 * This layer sits below the run folder and imports nothing of it: `SummaryRecord` is the
 * shape it reads, which a run folder's record satisfies.
 */
import { BAS_LABELS, FAULT_CODES, type BasLabel, type FaultCode, type Scores } from '../task/types.js';
import {
  histogram,
  passAtKRows,
  pooledFaults,
  type HistogramBin,
  type PassAtKRow,
  type PooledFaults,
} from './aggregate.js';
import { ErrorMessages, type ErrorDigest } from './error-digest.js';
import { estimate, percentileSorted, type Estimate, type Scale } from './stats.js';

export type { ErrorDigest } from './error-digest.js';

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
    /** Of the sums above, the tokens that bought no score: errored rollouts' and replaced lines'. */
    unscored: TokenSums;
  };
  /** Over completed rollouts that recorded a latency. */
  latency_ms: { n: number; mean: number | null; p50: number | null; p95: number | null };
  /** Time to first token, over completed rollouts that recorded one (streamed replies, `--stream`). */
  ttft_ms: { n: number; mean: number | null; p50: number | null; p95: number | null };
  /** Empty unless some task has more than one rollout. */
  pass_at_k: PassAtKRow[];
  /** Completed rewards in ten bins of width 0.1; the last bin includes 1.0. */
  reward_histogram: HistogramBin[];
}

/** Token sums over some lines, and how many of those lines reported usage. */
interface TokenSums {
  prompt: number;
  completion: number;
  total: number;
  reasoning: number;
  cached: number;
  lines: number;
}

/** A reply's token count above this is not a count but a fault of the endpoint. */
const MAX_TOKENS = 100_000_000;

const METRIC_NAMES = ['bas_label_accuracy', 'fault_precision', 'fault_recall', 'num_flagged', 'parsed'] as const;
/** What each metric's values can be: all lie in [0, 1] but the count of claims. */
const METRIC_SCALES: Record<(typeof METRIC_NAMES)[number], Scale> = {
  bas_label_accuracy: 'unit',
  fault_precision: 'unit',
  fault_recall: 'unit',
  num_flagged: 'count',
  parsed: 'unit',
};

// Column layout of one slot.
const C_INDEX = 0;
const C_ROLLOUT = 1;
const C_ERR = 2; // -1 = completed, else an id into errorTypes
const C_REWARD = 3;
const C_BAS = 4;
const C_AUDIT = 5;
const C_METRIC = 6; // 5 columns
const C_LABEL = C_METRIC + METRIC_NAMES.length; // 4 columns
const C_CODE = C_LABEL + BAS_LABELS.length; // 3 per code: tp, fp, fn
const C_UNKNOWN = C_CODE + 3 * FAULT_CODES.length;
const C_TOK = C_UNKNOWN + 1; // prompt, completion, total, reasoning, cached
const N_TOK = 5;
const C_LAT = C_TOK + N_TOK;
const C_TTFT = C_LAT + 1;
const C_MSG = C_TTFT + 1; // id into messages, NaN when not kept
const C_TRUNC = C_MSG + 1; // 1 when finish_reason was "length"
const NCOL = C_TRUNC + 1;
const CHUNK_BITS = 12; // 4,096 slots (about 1.2 MB) per chunk
const CHUNK_MASK = (1 << CHUNK_BITS) - 1;

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : Number.NaN;
}

/** A token count as recorded, or NaN: only whole numbers from 0 to MAX_TOKENS count. */
function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKENS ? v : Number.NaN;
}

/** Builds a `Summary` from records streamed one at a time. */
export class SummaryBuilder {
  /** Slots live in fixed chunks, so growing never copies and never over-allocates by much. */
  private readonly chunks: Float64Array[] = [];
  private size = 0;
  private lines = 0;
  private replaced = 0;
  private readonly errorTypes: string[] = [];
  private readonly messages = new ErrorMessages();
  private ignoredTokens = 0;
  /** Token sums of lines a later line replaced (prompt … cached), and how many reported any. */
  private readonly replacedTokens = new Float64Array(N_TOK);
  private replacedWithUsage = 0;

  private get(s: number, c: number): number {
    return this.chunks[s >>> CHUNK_BITS]![(s & CHUNK_MASK) * NCOL + c]!;
  }

  /** Adds the record of one rollout (each rollout once: the reader has picked its winning line). */
  add(r: SummaryRecord): void {
    this.lines++;
    const rollout = r.rollout ?? 0;
    const slot = this.size++;
    if (slot >>> CHUNK_BITS >= this.chunks.length) this.chunks.push(new Float64Array(NCOL << CHUNK_BITS));
    const d = this.chunks[slot >>> CHUNK_BITS]!;
    const o = (slot & CHUNK_MASK) * NCOL;
    d.fill(Number.NaN, o, o + NCOL);
    d[o + C_INDEX] = r.index;
    d[o + C_ROLLOUT] = rollout;
    d[o + C_LAT] = num(r.latency_ms);
    d[o + C_TTFT] = num(r.ttft_ms);
    const u = r.usage;
    if (u) {
      const counts = [u.prompt_tokens, u.completion_tokens, u.total_tokens, u.reasoning_tokens, u.cached_tokens];
      counts.forEach((v, i) => {
        d[o + C_TOK + i] = tokenCount(v);
        if (v != null && Number.isNaN(d[o + C_TOK + i]!)) this.ignoredTokens++;
      });
    }
    if (r.error) {
      let id = this.errorTypes.indexOf(r.error.type);
      if (id < 0) id = this.errorTypes.push(r.error.type) - 1;
      d[o + C_ERR] = id;
      d[o + C_MSG] = this.messages.id(r.error.type, typeof r.error.message === 'string' ? r.error.message : '');
      return;
    }
    d[o + C_TRUNC] = r.finish_reason === 'length' ? 1 : 0;
    d[o + C_ERR] = -1;
    d[o + C_REWARD] = num(r.reward);
    d[o + C_BAS] = num(r.rewards?.bas_correct);
    d[o + C_AUDIT] = num(r.rewards?.fault_audit);
    METRIC_NAMES.forEach((m, i) => (d[o + C_METRIC + i] = num(r.metrics?.[m])));
    const detail = r.detail;
    if (detail) {
      BAS_LABELS.forEach(
        (l, i) => (d[o + C_LABEL + i] = detail.labels?.[l] === undefined ? Number.NaN : detail.labels[l] ? 1 : 0),
      );
      FAULT_CODES.forEach((c, i) => {
        const pc = detail.codes?.[c];
        d[o + C_CODE + 3 * i] = num(pc?.tp);
        d[o + C_CODE + 3 * i + 1] = num(pc?.fp);
        d[o + C_CODE + 3 * i + 2] = num(pc?.fn);
      });
      d[o + C_UNKNOWN] = num(detail.unknown_codes);
    }
  }

  /**
   * Counts a line of the results file that a later line of its pair replaced (the reader does
   * not summarise it): its tokens were paid for, so they join the token sums.
   */
  addReplaced(r: SummaryRecord): void {
    this.lines++;
    this.replaced++;
    const u = r.usage;
    if (!u) return;
    let any = false;
    [u.prompt_tokens, u.completion_tokens, u.total_tokens, u.reasoning_tokens, u.cached_tokens].forEach((v, i) => {
      const n = tokenCount(v);
      if (n === n) {
        this.replacedTokens[i]! += n;
        any = true;
      } else if (v != null) this.ignoredTokens++;
    });
    if (any) this.replacedWithUsage++;
  }

  /** Per error type, the commonest messages among the winning lines. */
  private digests(): ErrorDigest[] {
    const errored: Array<{ type: string; message: number }> = [];
    for (let s = 0; s < this.size; s++) {
      const err = this.get(s, C_ERR);
      if (err !== -1) errored.push({ type: this.errorTypes[err]!, message: this.get(s, C_MSG) });
    }
    return this.messages.digest(errored);
  }

  /**
   * Per task: the mean reward over its completed rollouts (NaN if none completed) and the
   * mean with errors counted as 0, sorted by index. Compare pairs runs on these.
   */
  perTask(): Array<{ index: number; rollouts: number; completed: number; reward: number; rewardZero: number }> {
    const byTask = new Map<number, { rollouts: number; completed: number; sum: number }>();
    for (let s = 0; s < this.size; s++) {
      const idx = this.get(s, C_INDEX);
      const t = byTask.get(idx) ?? { rollouts: 0, completed: 0, sum: 0 };
      t.rollouts++;
      if (this.get(s, C_ERR) === -1) {
        t.completed++;
        t.sum += this.get(s, C_REWARD);
      }
      byTask.set(idx, t);
    }
    return [...byTask.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, t]) => ({
        index,
        rollouts: t.rollouts,
        completed: t.completed,
        reward: t.completed ? t.sum / t.completed : Number.NaN,
        rewardZero: t.sum / t.rollouts,
      }));
  }

  /**
   * Copies column `c` of the slots that `mask` marks (all when null) into `xs`, missing
   * values skipped, and their task indices into `groups` when given; returns how many. The
   * loop runs over the chunks directly: the summary is made once, at the end of a run, in
   * code that is still cold, so a call per value is what would cost.
   */
  private gather(c: number, mask: Uint8Array | null, xs: Float64Array, groups: Float64Array | null): number {
    let n = 0;
    for (let k = 0; k < this.chunks.length; k++) {
      const d = this.chunks[k]!;
      const first = k << CHUNK_BITS;
      const count = Math.min(this.size - first, 1 << CHUNK_BITS);
      for (let j = 0, o = 0; j < count; j++, o += NCOL) {
        if (mask !== null && mask[first + j] === 0) continue;
        const v = d[o + c]!;
        if (v !== v) continue; // NaN: not recorded
        if (groups !== null) groups[n] = d[o + C_INDEX]!;
        xs[n++] = v;
      }
    }
    return n;
  }

  /** Column `c` over the slots `mask` marks, with task indices, in arrays of their own. */
  private column(c: number, mask: Uint8Array | null): { xs: Float64Array; groups: Float64Array } {
    const xs = new Float64Array(this.size);
    const groups = new Float64Array(this.size);
    const n = this.gather(c, mask, xs, groups);
    return { xs: xs.subarray(0, n), groups: groups.subarray(0, n) };
  }

  /** Sum and count of column `c` over the slots `mask` marks, gathered through one reused buffer. */
  private sum(c: number, mask: Uint8Array | null, scratch: Float64Array): { total: number; n: number } {
    const n = this.gather(c, mask, scratch, null);
    let total = 0;
    for (let i = 0; i < n; i++) total += scratch[i]!;
    return { total, n };
  }

  /** The summary of everything added so far. */
  result(): Summary {
    const done = new Uint8Array(this.size);
    // Error types come from files: `constructor` or `__proto__` must be a key like any other.
    const errorsByType: Record<string, number> = Object.create(null) as Record<string, number>;
    const tasks = new Map<number, { n: number; c: number }>();
    const zero = new Float64Array(this.size);
    const zeroGroups = new Float64Array(this.size);
    let completed = 0;
    for (let s = 0; s < this.size; s++) {
      const err = this.get(s, C_ERR);
      const index = this.get(s, C_INDEX);
      let t = tasks.get(index);
      if (t === undefined) tasks.set(index, (t = { n: 0, c: 0 }));
      t.n++;
      if (err === -1) {
        completed++;
        done[s] = 1;
        zero[s] = this.get(s, C_REWARD);
        if (this.get(s, C_BAS) === 1) t.c++;
      } else {
        const type = this.errorTypes[err]!;
        errorsByType[type] = (errorsByType[type] ?? 0) + 1;
      }
      zeroGroups[s] = index;
    }
    let maxRollouts = 0;
    for (const t of tasks.values()) maxRollouts = Math.max(maxRollouts, t.n);
    // Task indices matter to an estimate only when some task has several rollouts; with one
    // each, no subset can repeat a task and the plain estimate is the clustered one.
    const clustered = maxRollouts > 1;
    const completedEstimate = (c: number, scale: Scale = 'unit'): Estimate => {
      const { xs, groups } = this.column(c, done);
      return estimate(xs, clustered ? groups : undefined, scale);
    };

    const scratch = new Float64Array(this.size);
    const sum = (c: number, mask: Uint8Array | null = null) => this.sum(c, mask, scratch);
    const codes = {} as Record<FaultCode, CodeBreakdown>;
    FAULT_CODES.forEach((code, i) => {
      const tp = sum(C_CODE + 3 * i, done).total;
      const fp = sum(C_CODE + 3 * i + 1, done).total;
      const fn = sum(C_CODE + 3 * i + 2, done).total;
      codes[code] = { tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : null, recall: tp + fn ? tp / (tp + fn) : null };
    });
    const unknownCodes = sum(C_UNKNOWN, done).total;
    const labels = {} as Record<BasLabel, Estimate>;
    BAS_LABELS.forEach((l, i) => (labels[l] = completedEstimate(C_LABEL + i)));
    const metrics = {} as Summary['metrics'];
    METRIC_NAMES.forEach((m, i) => (metrics[m] = completedEstimate(C_METRIC + i, METRIC_SCALES[m])));

    const lat = this.column(C_LAT, done).xs.slice().sort();
    const ttft = this.column(C_TTFT, done).xs.slice().sort();
    // Token sums over the winning lines (all, or the errored ones), plus the replaced lines'.
    const failed = done.map((v) => 1 - v);
    const tokenSums = (mask: Uint8Array | null): TokenSums => {
      const t = [0, 1, 2, 3, 4].map((i) => sum(C_TOK + i, mask));
      const r = this.replacedTokens;
      return {
        prompt: t[0]!.total + r[0]!,
        completion: t[1]!.total + r[1]!,
        total: t[2]!.total + r[2]!,
        reasoning: t[3]!.total + r[3]!,
        cached: t[4]!.total + r[4]!,
        lines: Math.max(t[0]!.n, t[1]!.n, t[2]!.n) + this.replacedWithUsage,
      };
    };
    const allTokens = tokenSums(null);
    const truncated = sum(C_TRUNC, done).total;
    return {
      counts: {
        lines: this.lines,
        replaced: this.replaced,
        rollouts: this.size,
        tasks: tasks.size,
        max_rollouts: maxRollouts,
        completed,
        errored: this.size - completed,
        errors_by_type: errorsByType,
      },
      errors: this.digests(),
      truncated,
      reward: completedEstimate(C_REWARD),
      reward_errors_as_zero: estimate(zero, clustered ? zeroGroups : undefined, 'unit'),
      rewards: { bas_correct: completedEstimate(C_BAS), fault_audit: completedEstimate(C_AUDIT) },
      metrics,
      labels,
      codes,
      unknown_codes: unknownCodes,
      faults_pooled: pooledFaults(Object.values(codes), unknownCodes),
      tokens: {
        prompt: allTokens.prompt,
        completion: allTokens.completion,
        total: allTokens.total,
        reasoning: allTokens.reasoning,
        cached: allTokens.cached,
        rollouts_with_usage: allTokens.lines - this.replacedWithUsage,
        ignored: this.ignoredTokens,
        unscored: tokenSums(failed),
      },
      latency_ms: {
        n: lat.length,
        mean: lat.length ? lat.reduce((a, b) => a + b, 0) / lat.length : null,
        p50: percentileSorted(lat, 0.5),
        p95: percentileSorted(lat, 0.95),
      },
      ttft_ms: {
        n: ttft.length,
        mean: ttft.length ? ttft.reduce((a, b) => a + b, 0) / ttft.length : null,
        p50: percentileSorted(ttft, 0.5),
        p95: percentileSorted(ttft, 0.95),
      },
      pass_at_k: maxRollouts > 1 ? passAtKRows(tasks, maxRollouts) : [],
      reward_histogram: histogram(this.column(C_REWARD, done).xs),
    };
  }
}

/** Summary of a finite list of records, one per rollout. */
export function summarize(records: Iterable<SummaryRecord>): Summary {
  const b = new SummaryBuilder();
  for (const r of records) b.add(r);
  return b.result();
}
