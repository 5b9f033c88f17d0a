/**
 * The rollout record: one line of a run's results.jsonl (and of `bas score --out`), and the
 * check that turns a parsed JSON value into one. Unknown extra fields are tolerated, since
 * newer writers may add some.
 */
import { resolveTaskConfig } from '../task/config.js';
import type { Scores, TaskConfig } from '../task/types.js';

/** Why a rollout ended without a score. */
export interface RolloutError {
  type: string;
  message: string;
}

interface TokenUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  /** `completion_tokens_details.reasoning_tokens`: part of the completion tokens. */
  reasoning_tokens?: number | null;
  /** `prompt_tokens_details.cached_tokens`: part of the prompt tokens. */
  cached_tokens?: number | null;
}

/** One rollout as written to results.jsonl. Score fields are null on an errored rollout. */
export interface RolloutRecord {
  index: number;
  /** Which sample of the task (0-based); absent in `bas score --out` lines, read as 0. */
  rollout?: number;
  config?: TaskConfig;
  /**
   * `bas score` only: 16 hex digits of the graded task's ledger and key (task-digest.ts), so a
   * report rebuilds a task only when it is the one graded. Absent from eval runs, whose tasks
   * the generator rebuilds, and from runs scored before 0.4.1.
   */
  task_digest?: string;
  model?: string;
  reply?: string | null;
  reward: number | null;
  rewards: Scores['rewards'] | null;
  metrics: Scores['metrics'] | null;
  detail?: Scores['detail'] | null;
  error: RolloutError | null;
  latency_ms?: number | null;
  /** Streamed replies (`--stream`): ms from the start of the answering attempt to its first token. */
  ttft_ms?: number | null;
  usage?: TokenUsage | null;
  finish_reason?: string | null;
  attempts?: number | null;
  /**
   * True when the reply came from the response cache (`--cache`, since 0.4.1): nothing was
   * paid for it in this run; `usage` and `latency_ms` are those of when it was first received.
   */
  cached?: boolean;
}

/** A compact key for an (index, rollout) pair: a number when it fits exactly, else a string. */
export type PairKey = number | string;

export function pairKey(index: number, rollout: number): PairKey {
  return index < 2 ** 31 && rollout < 2 ** 21 ? index * 2 ** 21 + rollout : `${index}:${rollout}`;
}

/** The (index, rollout) a key stands for. */
export function splitPairKey(key: PairKey): [number, number] {
  if (typeof key === 'number') return [Math.floor(key / 2 ** 21), key % 2 ** 21];
  const [index, rollout] = key.split(':').map(Number);
  return [index!, rollout!];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isIndex(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/**
 * A record's task configuration, checked against the bounds of the flags: reports regenerate
 * ledgers from it, and an absurd `num_transactions` would exhaust memory before failing.
 */
function checkConfig(config: unknown): string | null {
  if (!isObject(config)) return '"config" is not an object {num_transactions, fault_rate, seed}';
  for (const k of ['num_transactions', 'fault_rate', 'seed']) {
    if (typeof config[k] !== 'number') return `"config.${k}" is not a number`;
  }
  // A run's records repeat one configuration: the last one found good is not checked again.
  const { num_transactions, fault_rate, seed } = config as Record<string, number>;
  const ok = lastGoodConfig;
  if (ok !== null && ok[0] === num_transactions && ok[1] === fault_rate && ok[2] === seed) return null;
  try {
    resolveTaskConfig(config, {
      num_transactions: '"config.num_transactions"',
      fault_rate: '"config.fault_rate"',
      seed: '"config.seed"',
    });
  } catch (err) {
    return (err as Error).message;
  }
  lastGoodConfig = [num_transactions!, fault_rate!, seed!];
  return null;
}

let lastGoodConfig: [number, number, number] | null = null;

/**
 * Checks the fields a report relies on. Returns the record, or a short reason it is not one
 * (the reader adds the file and line number).
 */
export function checkRecord(value: unknown): RolloutRecord | string {
  if (!isObject(value)) return 'not a JSON object';
  if (!isIndex(value.index)) return '"index" is not a non-negative integer';
  if (value.rollout !== undefined && !isIndex(value.rollout)) return '"rollout" is not a non-negative integer';
  if (value.config !== undefined && value.config !== null) {
    const reason = checkConfig(value.config);
    if (reason !== null) return reason;
  }
  const error = value.error ?? null;
  if (error !== null) {
    if (!isObject(error) || typeof error.type !== 'string') return '"error" is neither null nor {"type", "message"}';
    return value as unknown as RolloutRecord;
  }
  if (typeof value.reward !== 'number' || !Number.isFinite(value.reward)) {
    return 'a rollout without "error" has no numeric "reward"';
  }
  if (
    !isObject(value.rewards) ||
    typeof value.rewards.bas_correct !== 'number' ||
    typeof value.rewards.fault_audit !== 'number'
  ) {
    return '"rewards" lacks bas_correct or fault_audit';
  }
  if (!isObject(value.metrics)) return '"metrics" is not an object';
  const outside = scoreOutOfRange(value);
  if (outside !== null) return outside;
  return value as unknown as RolloutRecord;
}

/** Scores that lie in [0, 1] by construction (task/score.ts): a value outside is no score of bas. */
const UNIT_SCORES = [
  ['reward', (v: Record<string, unknown>) => v.reward],
  ['rewards.bas_correct', (v: Record<string, unknown>) => (v.rewards as Record<string, unknown>).bas_correct],
  ['rewards.fault_audit', (v: Record<string, unknown>) => (v.rewards as Record<string, unknown>).fault_audit],
  ...(['bas_label_accuracy', 'fault_precision', 'fault_recall', 'parsed'] as const).map(
    (m) => [`metrics.${m}`, (v: Record<string, unknown>) => (v.metrics as Record<string, unknown>)[m]] as const,
  ),
] as const;

/** A count a record may hold (claims, pair counts): a whole number far below any float trouble. */
function isCount(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/**
 * Why a scored record's numbers cannot be bas's, or null: a reward of 1.3 or a claim count of
 * 1e999 (JSON's way to write Infinity) would pass into every mean and interval of a report.
 * Fields that are absent or null are left to the reader (old records lack some).
 */
function scoreOutOfRange(value: Record<string, unknown>): string | null {
  for (const [name, get] of UNIT_SCORES) {
    const v = get(value);
    if (v == null) continue;
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) return `"${name}" is ${String(v)}, outside 0..1`;
  }
  const flagged = (value.metrics as Record<string, unknown>).num_flagged;
  if (flagged != null && !isCount(flagged)) return `"metrics.num_flagged" is ${String(flagged)}, not a count`;
  if (
    value.latency_ms != null &&
    !(typeof value.latency_ms === 'number' && value.latency_ms >= 0 && value.latency_ms < 1e12)
  )
    return `"latency_ms" is ${String(value.latency_ms)}, not a duration`;
  const detail = value.detail;
  if (isObject(detail)) {
    if (detail.unknown_codes != null && !isCount(detail.unknown_codes))
      return `"detail.unknown_codes" is ${String(detail.unknown_codes)}, not a count`;
    // Since 0.5 (absent before): where a wrong BAS comes from, a 0/1 and causes by name.
    if (isObject(detail.consistency)) {
      const c = detail.consistency;
      if (c.bas_consistent != null && c.bas_consistent !== 0 && c.bas_consistent !== 1)
        return `"detail.consistency.bas_consistent" is ${String(c.bas_consistent)}, not 0 or 1`;
    }
    if (isObject(detail.codes)) {
      const codes = detail.codes;
      for (const code in codes) {
        if (!Object.hasOwn(codes, code)) continue;
        const counts = codes[code];
        if (!isObject(counts)) continue;
        const bad =
          counts.tp != null && !isCount(counts.tp)
            ? 'tp'
            : counts.fp != null && !isCount(counts.fp)
              ? 'fp'
              : counts.fn != null && !isCount(counts.fn)
                ? 'fn'
                : null;
        if (bad !== null) return `"detail.codes.${code}.${bad}" is ${String(counts[bad])}, not a count`;
      }
    }
  }
  return null;
}

/** Who a record is about: the task, which sample of it, its configuration and the model. */
interface RecordBase {
  index: number;
  rollout: number;
  config?: TaskConfig;
  task_digest?: string;
  model?: string;
}

/** What a record may tell beyond its score or error, in the order the file keeps them. */
interface RecordExtras {
  latency_ms?: number | null;
  /** Streamed replies: ms to the first token. */
  ttft_ms?: number;
  usage?: TokenUsage | null;
  finish_reason?: string | null;
  attempts?: number | null;
  /** Only `true` is written: a record without the field was paid for. */
  cached?: true;
}

/** The extras that were given, in a fixed order, so every writer's lines read alike. */
function extras(x: RecordExtras): RecordExtras {
  const out: RecordExtras = {};
  if (x.latency_ms !== undefined) out.latency_ms = x.latency_ms;
  if (x.ttft_ms !== undefined) out.ttft_ms = x.ttft_ms;
  if (x.usage !== undefined) out.usage = x.usage;
  if (x.finish_reason !== undefined) out.finish_reason = x.finish_reason;
  if (x.attempts !== undefined) out.attempts = x.attempts;
  if (x.cached === true) out.cached = true;
  return out;
}

/** The record of a reply that was scored. */
export function scoredRecord(base: RecordBase, reply: string, s: Scores, x: RecordExtras = {}): RolloutRecord {
  return {
    index: base.index,
    rollout: base.rollout,
    config: base.config,
    ...(base.task_digest === undefined ? {} : { task_digest: base.task_digest }),
    model: base.model,
    reply,
    reward: s.reward,
    rewards: s.rewards,
    metrics: s.metrics,
    detail: s.detail,
    error: null,
    ...extras(x),
  };
}

/**
 * The record of a rollout that ended without a score. `usage` is kept when the endpoint
 * billed tokens for the failed reply (they were paid for); `reply` when one came and could
 * not be used.
 */
export function erroredRecord(
  base: RecordBase,
  error: RolloutError,
  x: RecordExtras & { reply?: string | null } = {},
): RolloutRecord {
  const { reply = null, ...rest } = x;
  return {
    index: base.index,
    rollout: base.rollout,
    config: base.config,
    ...(base.task_digest === undefined ? {} : { task_digest: base.task_digest }),
    model: base.model,
    reply,
    reward: null,
    rewards: null,
    metrics: null,
    detail: null,
    error: { type: error.type, message: error.message },
    ...extras(rest),
  };
}

/** The error type of a planned rollout that has no reply at all (`bas score` of a replies file that lost lines). */
export const MISSING_REPLY = 'missing_reply';

/** The record of a planned rollout that has no line in the replies file `file`. */
export function missingReplyRecord(base: RecordBase, file: string): RolloutRecord {
  return erroredRecord(base, {
    type: MISSING_REPLY,
    message: `no reply for task ${base.index} rollout ${base.rollout} in ${file}`,
  });
}
