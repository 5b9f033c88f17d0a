/** Hand-written rollout records for report tests. */
import type { RolloutRecord } from '../../src/runfile/record.js';

const CODES = [
  'gst_on_gst_free',
  'gst_miscalculated',
  'duplicate_invoice',
  'outside_period',
  'missing_abn_over_threshold',
] as const;

const CONFIG = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };

/** A completed rollout with the given scores; `codes` maps code index to [tp, fp, fn]. */
export function done(
  index: number,
  rollout: number,
  opts: {
    bas: 0 | 1;
    audit: number;
    labels?: [boolean, boolean, boolean, boolean];
    codes?: Record<number, [number, number, number]>;
    latency?: number;
    tokens?: [number, number];
    reply?: string;
  },
): RolloutRecord {
  const labels = opts.labels ?? (opts.bas ? [true, true, true, true] : [false, true, true, false]);
  const codes = Object.fromEntries(
    CODES.map((c, i) => {
      const [tp, fp, fn] = opts.codes?.[i] ?? [0, 0, 0];
      return [c, { tp, fp, fn }];
    }),
  ) as NonNullable<RolloutRecord['detail']>['codes'];
  const tokens = opts.tokens ?? [1000, 200];
  return {
    index,
    rollout,
    config: CONFIG,
    model: 'test/model',
    reply: opts.reply ?? '<answer>{}</answer>',
    reward: 0.6 * opts.bas + 0.4 * opts.audit,
    rewards: { bas_correct: opts.bas, fault_audit: opts.audit },
    metrics: {
      bas_label_accuracy: labels.filter(Boolean).length / 4,
      fault_precision: opts.audit,
      fault_recall: opts.audit,
      num_flagged: 3,
      parsed: 1,
    },
    detail: { labels: { G1: labels[0], '1A': labels[1], '1B': labels[2], net: labels[3] }, codes, unknown_codes: 0 },
    error: null,
    latency_ms: opts.latency ?? 1000,
    usage: { prompt_tokens: tokens[0], completion_tokens: tokens[1], total_tokens: tokens[0] + tokens[1] },
    finish_reason: 'stop',
    attempts: 1,
  };
}

/** An errored rollout. */
export function failed(index: number, rollout: number, type = 'timeout'): RolloutRecord {
  return {
    index,
    rollout,
    config: CONFIG,
    model: 'test/model',
    reply: null,
    reward: null,
    rewards: null,
    metrics: null,
    detail: null,
    error: { type, message: `${type} after a while` },
    latency_ms: null,
    usage: null,
    finish_reason: null,
    attempts: 3,
  };
}
