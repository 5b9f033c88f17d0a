/**
 * Shards: `--shard I/N` runs the I-th of N disjoint slices of a run's task indices, so a
 * large run can be spread over machines (a CI matrix, a job array) and joined with
 * `bas merge`. Slices are strided (task i goes to shard i mod N + 1), so every shard gets a
 * like mix of tasks and any shard's results alone are a fair sample of the run. `--shard auto`
 * takes I and N from a Slurm array job or a Kubernetes indexed job.
 */
import { ConfigError } from '../errors/index.js';
import * as std from '../io/std.js';

export interface Shard {
  /** 1-based: the first shard is 1/N. */
  index: number;
  count: number;
}

/** Most shards a run may be split into. */
const MAX_SHARDS = 100_000;

function isShard(index: unknown, count: unknown): boolean {
  return (
    Number.isSafeInteger(index) &&
    Number.isSafeInteger(count) &&
    (count as number) >= 1 &&
    (count as number) <= MAX_SHARDS &&
    (index as number) >= 1 &&
    (index as number) <= (count as number)
  );
}

/** The variable a Kubernetes indexed job must set to its `completions` (Kubernetes does not export it). */
const K8S_COUNT_VAR = 'BAS_SHARD_COUNT';

/** A non-negative whole number from the environment, or null when unset; throws when set to anything else. */
function envWhole(env: NodeJS.ProcessEnv, name: string, flag: string): number | null {
  const v = env[name];
  if (v === undefined || v === '') return null;
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(Number(v)))
    throw new ConfigError(`${flag} auto: ${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

function shardOrFail(index: number, count: number, flag: string, from: string): Shard {
  if (!isShard(index, count))
    throw new ConfigError(
      `${flag} auto: ${from} gives shard ${index}/${count}, which is not 1 <= I <= N <= ${MAX_SHARDS}`,
    );
  return { index, count };
}

/**
 * The shard of this process in a job array, from its scheduler's environment:
 * - Slurm (`sbatch --array=A-B[:S]`): SLURM_ARRAY_TASK_ID, with SLURM_ARRAY_TASK_MIN,
 *   SLURM_ARRAY_TASK_STEP (default 1) and the count from SLURM_ARRAY_TASK_COUNT, or from
 *   SLURM_ARRAY_TASK_MAX. Shard I is the I-th value of the range, so `--array=1-8` and
 *   `--array=0-7` both give 1/8 .. 8/8. An array given as a list (`--array=1,5,9`) is not a
 *   range and is refused: the count and the range would not agree.
 * - Kubernetes indexed jobs: JOB_COMPLETION_INDEX (0-based) with the count in BAS_SHARD_COUNT,
 *   set in the pod template to the job's `completions`.
 * Anything missing, malformed or inconsistent is a ConfigError that names the variable.
 */
export function shardFromEnv(env: NodeJS.ProcessEnv, flag = '--shard'): Shard {
  const slurm = env.SLURM_ARRAY_TASK_ID !== undefined && env.SLURM_ARRAY_TASK_ID !== '';
  const k8s = env.JOB_COMPLETION_INDEX !== undefined && env.JOB_COMPLETION_INDEX !== '';
  if (slurm && k8s)
    throw new ConfigError(
      `${flag} auto: both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set; give --shard I/N to say which is meant`,
    );
  if (slurm) {
    const id = envWhole(env, 'SLURM_ARRAY_TASK_ID', flag)!;
    const min = envWhole(env, 'SLURM_ARRAY_TASK_MIN', flag);
    const max = envWhole(env, 'SLURM_ARRAY_TASK_MAX', flag);
    const step = envWhole(env, 'SLURM_ARRAY_TASK_STEP', flag) ?? 1;
    let count = envWhole(env, 'SLURM_ARRAY_TASK_COUNT', flag);
    if (min === null) throw new ConfigError(`${flag} auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not`);
    if (step < 1) throw new ConfigError(`${flag} auto: SLURM_ARRAY_TASK_STEP must be at least 1, got ${step}`);
    if (max !== null) {
      if (max < min || (max - min) % step !== 0)
        throw new ConfigError(
          `${flag} auto: the Slurm array ${min}-${max}:${step} is not a range of whole steps; give --shard I/N`,
        );
      const span = (max - min) / step + 1;
      if (count !== null && count !== span)
        throw new ConfigError(
          `${flag} auto: SLURM_ARRAY_TASK_COUNT is ${count} but the array ${min}-${max}:${step} holds ${span} tasks; an array given as a list (--array=1,5,9) cannot be sharded automatically, give --shard I/N`,
        );
      count = span;
    }
    if (count === null)
      throw new ConfigError(
        `${flag} auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is`,
      );
    if (id < min || (id - min) % step !== 0)
      throw new ConfigError(
        `${flag} auto: SLURM_ARRAY_TASK_ID ${id} is not in the array that starts at ${min} with step ${step}`,
      );
    return shardOrFail((id - min) / step + 1, count, flag, `SLURM_ARRAY_TASK_ID ${id}`);
  }
  if (k8s) {
    const index = envWhole(env, 'JOB_COMPLETION_INDEX', flag)!;
    const count = envWhole(env, K8S_COUNT_VAR, flag);
    if (count === null)
      throw new ConfigError(
        `${flag} auto: JOB_COMPLETION_INDEX is set but ${K8S_COUNT_VAR} is not: set it in the pod template to the job's completions`,
      );
    return shardOrFail(index + 1, count, flag, `JOB_COMPLETION_INDEX ${index} of ${K8S_COUNT_VAR} ${count}`);
  }
  if (env[K8S_COUNT_VAR] !== undefined && env[K8S_COUNT_VAR] !== '')
    throw new ConfigError(`${flag} auto: ${K8S_COUNT_VAR} is set but JOB_COMPLETION_INDEX is not`);
  throw new ConfigError(
    `${flag} auto: not in a job array: neither SLURM_ARRAY_TASK_ID (Slurm) nor JOB_COMPLETION_INDEX (a Kubernetes indexed job) is set`,
  );
}

/**
 * Reads "I/N" (1 <= I <= N), or `auto` for the job array this process runs in (see
 * shardFromEnv); `name` names the flag or key in the error.
 */
export function parseShard(value: unknown, name: string, env: NodeJS.ProcessEnv = std.env()): Shard {
  if (typeof value === 'string' && value.trim() === 'auto') return shardFromEnv(env, name);
  const m = typeof value === 'string' ? /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value) : null;
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!isShard(index, count)) {
    throw new ConfigError(
      `${name} must be I/N with 1 <= I <= N <= ${MAX_SHARDS} (e.g. 2/4 for the second of four), or auto, got ${JSON.stringify(value)}`,
    );
  }
  return { index, count };
}

/**
 * The `shard` of a run.json: null for a whole run; `undefined` when the value is there but is
 * no shard (the caller says how bad that is), so a hand-edited `{"index": 1, "count": 0}`
 * can never reach the slicing arithmetic.
 */
export function readShard(value: unknown): Shard | null | undefined {
  if (value === null || value === undefined) return null;
  const s = value as Partial<Shard>;
  return typeof value === 'object' && isShard(s.index, s.count) ? { index: s.index!, count: s.count! } : undefined;
}

/** Whether task `i` belongs to `shard` (every task belongs to no shard at all). */
export function inShard(i: number, shard: Shard | null): boolean {
  return shard === null || i % shard.count === shard.index - 1;
}

/** How many of the tasks 0..n-1 a shard holds. */
export function shardSize(n: number, shard: Shard | null): number {
  if (shard === null) return n;
  return n >= shard.index ? Math.floor((n - shard.index) / shard.count) + 1 : 0;
}

/** "2/4", for messages (folder names use "shard2of4", since a slash cannot go in one). */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
