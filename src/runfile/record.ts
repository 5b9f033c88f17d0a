/**
 * The rollout record: one line of a run's results.jsonl (and of `bas score --out`), and the
 * check that turns a parsed JSON value into one. Unknown extra fields are tolerated, since
 * newer writers may add some.
 */
import { resolveTaskConfig } from '../task/config.js';
import type { Scores, TaskConfig } from '../task/types.js';

/** Why a rollout ended without a score. */
interface RolloutError {
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
  try {
    resolveTaskConfig(config, {
      num_transactions: '"config.num_transactions"',
      fault_rate: '"config.fault_rate"',
      seed: '"config.seed"',
    });
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

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
  return value as unknown as RolloutRecord;
}
