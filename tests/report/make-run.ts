/**
 * Writes realistic run folders for report tests: replies from the built-in policies, scored
 * by the real scorer, in the record format `bas eval` writes.
 */
import { PROMPT_VERSION } from '../../src/task/prompt.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATOR_VERSION, generateTask } from '../../src/task/generate.js';
import { runPolicy, type PolicyName } from '../../src/task/policies.js';
import { scoreReply } from '../../src/task/score.js';
import type { TaskConfig } from '../../src/task/types.js';
import type { RolloutRecord } from '../../src/runfile/record.js';

export const SMALL_CONFIG: TaskConfig = { num_transactions: 12, fault_rate: 0.3, seed: 7 };

/** Picks a policy per (index, rollout): a stand-in for a model that is sometimes right. */
export type Chooser = (index: number, rollout: number) => PolicyName | { error: string } | { reply: string };

export function makeRecord(
  config: TaskConfig,
  index: number,
  rollout: number,
  model: string,
  choice: ReturnType<Chooser>,
): RolloutRecord {
  const base = {
    index,
    rollout,
    config,
    model,
    latency_ms: 1000 + 37 * index + rollout,
    finish_reason: 'stop',
    attempts: 1,
  };
  if (typeof choice === 'object' && 'error' in choice) {
    return {
      ...base,
      reply: null,
      reward: null,
      rewards: null,
      metrics: null,
      detail: null,
      error: { type: choice.error, message: `${choice.error} (test)` },
      usage: null,
      finish_reason: null,
    };
  }
  const task = generateTask(config, index);
  const reply = typeof choice === 'string' ? runPolicy(choice, task.prompt) : choice.reply;
  const s = scoreReply(reply, task.key, task.ledger);
  return {
    ...base,
    reply,
    reward: s.reward,
    rewards: s.rewards,
    metrics: s.metrics,
    detail: s.detail,
    error: null,
    usage: { prompt_tokens: 1500 + index, completion_tokens: 300, total_tokens: 1800 + index },
  };
}

export function writeRun(
  dir: string,
  opts: {
    config?: TaskConfig;
    n: number;
    rollouts?: number;
    model: string;
    choose: Chooser;
    status?: string;
    extraLines?: string[];
    runJson?: Record<string, unknown> | null;
  },
): RolloutRecord[] {
  const config = opts.config ?? SMALL_CONFIG;
  const rollouts = opts.rollouts ?? 1;
  mkdirSync(dir, { recursive: true });
  const records: RolloutRecord[] = [];
  for (let i = 0; i < opts.n; i++)
    for (let r = 0; r < rollouts; r++) records.push(makeRecord(config, i, r, opts.model, opts.choose(i, r)));
  const lines = records.map((r) => JSON.stringify(r)).concat(opts.extraLines ?? []);
  writeFileSync(join(dir, 'results.jsonl'), lines.join('\n') + '\n');
  if (opts.runJson !== null) {
    const run = {
      bas_version: '0.1.0',
      // The records were made by this generator; the HTML drill-down rebuilds ledgers only then.
      generator: GENERATOR_VERSION,
      prompt_version: PROMPT_VERSION,
      model: opts.model,
      base_url: 'http://127.0.0.1:1/v1',
      task: config,
      n: opts.n,
      rollouts,
      indices: null,
      shard: null,
      prices: { in: null, out: null },
      status: opts.status ?? 'complete',
      started_at: '2026-09-12T10:00:00.000Z',
      ended_at: '2026-09-12T10:05:00.000Z',
      summary: null,
      ...opts.runJson,
    };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run, null, 2));
  }
  return records;
}

/** A sweep plan (sweep.json) in `dir` with one point per row count, each in its folder `rows-N`. */
export function writeSweepPlan(dir: string, rows: number[]): void {
  writeFileSync(
    join(dir, 'sweep.json'),
    JSON.stringify({
      kind: 'bas-sweep',
      created_at: '2026-12-04T10:00:00.000Z',
      model: null,
      models: ['builtin:oracle'],
      points: rows.map((n) => ({ num_transactions: n, fault_rate: null, folder: `rows-${n}` })),
      flags: {},
      words: [],
    }),
  );
}
