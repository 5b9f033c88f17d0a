/**
 * A run folder made from replies scored by `bas score --output`: the same results.jsonl and
 * run.json as `bas eval` writes, so `bas report` and `bas compare` read it like any run.
 * Written to a temporary folder and renamed into place.
 */
import { ConfigError } from '../errors/index.js';
import type { RolloutRecord } from './record.js';
import type { Summary } from '../summary/summary.js';
import { sameTaskConfig } from '../task/config.js';
import type { TaskConfig } from '../task/types.js';
import { buildRunFolder } from './build.js';
import { makeRunInfo, type RunInfo } from './run-info.js';

/**
 * The one task configuration of a tasks file, or a refusal: a run folder stands for one
 * configuration, since compare pairs runs by it. Checked as soon as the tasks are read.
 */
export function singleTaskConfig(tasks: Map<number, ScoredTask>): TaskConfig {
  const indices = [...tasks.keys()].sort((a, b) => a - b);
  const first = tasks.get(indices[0]!)!;
  const other = indices.find((i) => !sameTaskConfig(tasks.get(i)!.config, first.config));
  if (other !== undefined) {
    throw new ConfigError(
      `--output: the tasks file mixes task configurations (task ${indices[0]} and task ${other} differ); score each configuration into its own run folder`,
    );
  }
  // The versions the tasks were made with are recorded, so compare, merge and the HTML
  // drill-down never pair or regenerate them as another generator's or prompt's.
  for (const field of ['generator', 'prompt_version'] as const) {
    const mixed = indices.find((i) => (tasks.get(i)![field] ?? null) !== (first[field] ?? null));
    if (mixed !== undefined) {
      throw new ConfigError(
        `--output: the tasks file mixes ${field === 'generator' ? 'task generators' : 'prompt versions'} (task ${indices[0]} and task ${mixed} differ); score each into its own run folder`,
      );
    }
  }
  return first.config;
}

/** What a scored run needs of each task. */
interface ScoredTask {
  config: TaskConfig;
  generator?: number | null;
  prompt_version?: number | null;
}

/**
 * Writes `records` as a run of `model` over the tasks of a tasks file, scored under
 * `maxErrorRate`, with the sampling the replies were made with as the user told it (null:
 * not told, so run.json has none and every report says unknown).
 */
export async function writeScoredRun(
  out: string,
  records: RolloutRecord[],
  tasks: Map<number, ScoredTask>,
  summary: Summary,
  model: string,
  status: 'complete' | 'incomplete' = 'complete',
  maxErrorRate?: number,
  sampling: RunInfo['sampling'] | null = null,
): Promise<void> {
  const indices = [...tasks.keys()].sort((a, b) => a - b);
  const contiguous = indices.every((v, i) => v === i);
  const first = singleTaskConfig(tasks);
  const sample = tasks.values().next().value!;
  const rollouts = records.reduce((m, r) => Math.max(m, (r.rollout ?? 0) + 1), 1);
  const now = new Date().toISOString();
  const info = makeRunInfo({
    generator: sample.generator ?? null,
    prompt_version: sample.prompt_version ?? null,
    model,
    base_url: null,
    api_key_var: '',
    task: first,
    n: indices.length,
    rollouts,
    indices: contiguous ? null : indices,
    shard: null,
    ...(sampling === null ? {} : { sampling }),
    concurrency: 0,
    timeout_s: 0,
    request_timeout_s: 0,
    max_retries: 0,
    prices: { in: null, out: null },
    status,
    started_at: now,
    ended_at: now,
    summary,
    source: 'bas score',
    // The budget it was scored under, which the leaderboard ranks it by.
    ...(maxErrorRate === undefined ? {} : { max_error_rate: maxErrorRate }),
  });
  await buildRunFolder(out, '--output', (store) => {
    for (const r of records) store.append(r);
    return info;
  });
}
