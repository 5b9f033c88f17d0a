/**
 * run.json: the run's configuration, status and summary. This module is its one reader and
 * one writer. Everything read back is checked against the same bounds as the flags that
 * produced it, with an error naming the file and the key: a hand-edited or damaged run.json
 * must fail in words, not deep inside the runner or the generator.
 */
import { stringifyRedacted } from '../io/secrets.js';
import { existsSync } from 'node:fs';
import { readSmallFile } from '../io/jsonl.js';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-file.js';
import { ConfigError, fileError, FileTooLargeError, systemErrorCode } from '../errors/index.js';
import { MAX_TASKS, checkInteger, checkNumber, resolveTaskConfig } from '../task/config.js';
import { GENERATOR_VERSION } from '../task/generate.js';
import type { TaskConfig } from '../task/types.js';
import { readShard } from '../settings/shard.js';
import { BAS_VERSION, OPENAI_VERSION, runGenerator, runPromptVersion } from './versions.js';
import { PROMPT_VERSION } from '../task/prompt.js';
import type { PaceRecord, RunSession } from './sessions.js';

import { RUN_FILE } from './files.js';
import { shellWord } from '../display/format.js';

/**
 * `incomplete`: the run's inputs ended before every planned rollout was recorded (`bas score`
 * with replies missing, `bas merge` with a shard missing). `bas eval --resume` fills a merged
 * run; a scored one has no endpoint settings to resume with.
 */
type RunStatus = 'running' | 'complete' | 'incomplete' | 'interrupted' | 'failed' | 'budget' | 'precision' | 'decided';

/** run.json as bas writes it. Never holds the API key: only the name of the variable it was read from. */
export interface RunInfo {
  bas_version: string;
  /** The task generator's version (eval runs; null where tasks came from a file). */
  generator?: number | null;
  /** The prompt's version (eval runs, since generator 3; null where tasks came from a file). */
  prompt_version?: number | null;
  node_version: string;
  openai_version: string;
  model: string;
  /** Null for a built-in model, which talks to no endpoint. */
  base_url: string | null;
  api_key_var: string;
  task: { num_transactions: number; fault_rate: number; seed: number };
  n: number;
  rollouts: number;
  indices: number[] | null;
  shard: unknown;
  /**
   * As sent with every request (null: not sent). Absent where nothing says: a run made by
   * `bas score` that was not told how its replies were sampled.
   */
  sampling?: {
    temperature: number | null;
    max_tokens: number | null;
    reasoning_effort: string | null;
    extra: Record<string, unknown>;
  };
  concurrency: number;
  timeout_s: number;
  request_timeout_s: number;
  max_retries: number;
  prices: { in: number | null; out: number | null };
  /** The provider registry's name for the endpoint (runs of bas 0.2 and earlier: absent). */
  provider?: string | null;
  /** Share of errored rollouts above which the run exits non-zero. */
  max_error_rate?: number;
  /** Cap on one response body, in MB. */
  max_response_mb?: number;
  /** Whether concurrency adapted to rate limits. */
  adapt?: boolean;
  status: RunStatus;
  started_at: string;
  ended_at: string | null;
  /** Start of each resume (kept as bas 0.3 wrote it; `sessions` says more). */
  resumed_at?: string[];
  /** Every process that worked on the run, with its start, end and rollouts (sessions.ts). */
  sessions?: RunSession[];
  /** Seconds over the sessions whose length is known. */
  elapsed_s?: number | null;
  /** How the requests in flight were paced (the last session's). */
  pace?: PaceRecord;
  summary: unknown;
  [extra: string]: unknown;
}

/** run.json as a report reads it: every field may be missing (old or foreign files); present ones are checked. */
export interface RunFile {
  model?: string;
  task?: TaskConfig;
  n?: number;
  rollouts?: number;
  indices?: number[] | null;
  /** The slice of the tasks a sharded run covers (`bas eval --shard`). */
  shard?: { index: number; count: number } | null;
  prices?: { in: number | null; out: number | null };
  status?: RunStatus | string;
  started_at?: string;
  ended_at?: string | null;
  [key: string]: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The longest model name a run file may hold: past it, the file is damaged or not one bas wrote. */
const MAX_MODEL_CHARS = 1000;

/**
 * Checks the keys every reader relies on, where present: what sizes memory (n, rollouts,
 * indices, task) and what is shown (model, status). Returns the object with numbers normalised.
 */
export function checkRunFile(value: unknown, file: string): RunFile {
  if (!isObject(value)) throw new ConfigError(`${file} is not a bas run file (not a JSON object)`);
  const key = (k: string): string => `${file}: "${k}"`;
  const v: RunFile = { ...value };
  if (v.model !== undefined && (typeof v.model !== 'string' || v.model === '')) {
    throw new ConfigError(`${key('model')} must be a model name (a non-empty string)`);
  }
  if (typeof v.model === 'string' && v.model.length > MAX_MODEL_CHARS) {
    throw new ConfigError(
      `${key('model')} is ${v.model.length.toLocaleString('en-US')} characters long; a model name has at most ${MAX_MODEL_CHARS.toLocaleString('en-US')}`,
    );
  }
  if (v.n !== undefined) v.n = checkInteger(v.n, key('n'), 1, MAX_TASKS);
  if (v.rollouts !== undefined) v.rollouts = checkInteger(v.rollouts, key('rollouts'), 1, 1000);
  if (v.task !== undefined) {
    if (!isObject(v.task))
      throw new ConfigError(`${key('task')} must be an object {num_transactions, fault_rate, seed}`);
    const t = v.task as Record<string, unknown>;
    for (const k of ['num_transactions', 'fault_rate', 'seed'])
      if (t[k] === undefined) throw new ConfigError(`${key(`task.${k}`)} is missing`);
    v.task = resolveTaskConfig(t, {
      num_transactions: key('task.num_transactions'),
      fault_rate: key('task.fault_rate'),
      seed: key('task.seed'),
    });
  }
  if (v.indices !== undefined && v.indices !== null) {
    if (
      !Array.isArray(v.indices) ||
      v.indices.length > MAX_TASKS ||
      !v.indices.every((i) => Number.isSafeInteger(i) && i >= 0)
    ) {
      throw new ConfigError(`${key('indices')} must be null or a list of task indices (non-negative integers)`);
    }
  }
  // An unreadable "shard" only leaves a report without its expected count (expectedRollouts
  // says null); resume, which slices by it, refuses it (checkResumable).
  if (v.status !== undefined && typeof v.status !== 'string')
    throw new ConfigError(`${key('status')} must be a string`);
  if (v.prices !== undefined && v.prices !== null) {
    if (!isObject(v.prices)) throw new ConfigError(`${key('prices')} must be {"in": USD or null, "out": USD or null}`);
    const p = v.prices as Record<string, unknown>;
    const price = (k: 'in' | 'out'): number | null =>
      p[k] == null ? null : checkNumber(p[k], key(`prices.${k}`), 0, 1e6);
    v.prices = { in: price('in'), out: price('out') };
  }
  if (
    v.generator !== undefined &&
    v.generator !== null &&
    !(Number.isSafeInteger(v.generator) && (v.generator as number) >= 1)
  ) {
    throw new ConfigError(`${key('generator')} must be null or a generator version (a positive integer)`);
  }
  return v;
}

/** Far above any run.json bas writes (a score run's list of 10 million indices is ~80 MB). */
const MAX_RUN_FILE_BYTES = 256 * 1024 * 1024;

/** Reads and checks a run.json; null when there is none. */
export async function readRunInfo(file: string): Promise<RunFile | null> {
  let text: string;
  try {
    text = readSmallFile(file, MAX_RUN_FILE_BYTES, true);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (err instanceof FileTooLargeError)
      throw new ConfigError(
        `${file} is larger than ${MAX_RUN_FILE_BYTES} bytes: the file is damaged, or not one bas wrote`,
      );
    if (systemErrorCode(err) === 'ENOENT') return null;
    throw fileError('read', file, err);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(
      `${file} is not valid JSON (${(err as Error).message.split('\n', 1)[0]}); the file is damaged`,
    );
  }
  return checkRunFile(value, file);
}

/**
 * Checks what a resumed run is built on: the keys that say which tasks it covers. The
 * settings it goes on with (concurrency, timeouts, sampling …) are checked by the settings
 * declaration (src/settings/setting-table.ts) as they are read back, against the same ranges as
 * their flags, so `"concurrency": 0` is refused there, before the folder is touched.
 */
function checkResumable(v: RunFile, file: string): RunInfo {
  const key = (k: string): string => `${file}: "${k}"`;
  for (const k of ['model', 'n', 'task'] as const)
    if (v[k] === undefined) throw new ConfigError(`${key(k)} is missing: this is not a run file bas eval wrote`);
  if (readShard(v.shard) === undefined)
    throw new ConfigError(
      `${file} has an unreadable "shard" (it needs null or {"index": I, "count": N} with 1 <= I <= N)`,
    );
  if (v.sampling !== undefined && !isObject(v.sampling))
    throw new ConfigError(`${key('sampling')} must be an object {temperature, max_tokens, reasoning_effort, extra}`);
  return v as RunInfo;
}

/** Reads a saved run.json for `--resume DIR`, refusing what cannot be resumed. */
export async function readSavedRun(dir: string): Promise<RunInfo> {
  const file = join(dir, RUN_FILE);
  const v = await readRunInfo(file);
  if (v === null) {
    if (!existsSync(dir)) throw new ConfigError(`--resume: ${dir} is not a run folder: it does not exist`);
    throw new ConfigError(
      `--resume: ${dir} has no ${RUN_FILE}, so there is no run to continue; if the run failed at its start, begin it again with --output ${shellWord(dir)}`,
    );
  }
  if (v.indices != null || v.source === 'bas score')
    throw new ConfigError(`--resume: ${file} was written by bas score, not bas eval: there is nothing to resume`);
  return sameTasks(checkResumable(v, file), dir, '--resume', 'finish it with the bas that started it');
}

/** Refuses a run made by another task generator or prompt: the same indices would be other tasks. */
function sameTasks(info: RunInfo, dir: string, flag: string, advice: string): RunInfo {
  const generator = runGenerator(info);
  if (generator !== GENERATOR_VERSION) {
    throw new ConfigError(
      `${flag}: ${dir} was made with task generator ${generator}, and this bas (${BAS_VERSION}) has generator ${GENERATOR_VERSION}: the same indices would be different tasks; ${advice}, or start a new run`,
    );
  }
  const prompt = runPromptVersion(info);
  if (prompt !== PROMPT_VERSION) {
    throw new ConfigError(
      `${flag}: ${dir} was made with prompt ${prompt}, and this bas (${BAS_VERSION}) has prompt ${PROMPT_VERSION}: models would be asked differently; ${advice}, or start a new run`,
    );
  }
  return info;
}

/**
 * Reads the run.json of `--against RUN`: a whole run bas eval wrote with this generator and
 * prompt (its tasks are run again), not a shard (its tasks are a slice) nor a scored run.
 */
export async function readBaselineRun(dir: string): Promise<{ run: RunInfo; file: string }> {
  const file = join(dir, RUN_FILE);
  const v = await readRunInfo(file);
  if (v === null)
    throw new ConfigError(
      `--against: ${dir} is not a run folder (${existsSync(dir) ? `it has no ${RUN_FILE}` : 'it does not exist'})`,
    );
  if (v.indices != null || v.source === 'bas score')
    throw new ConfigError(`--against: ${file} was written by bas score: its tasks came from a file, not from bas eval`);
  const info = checkResumable(v, file);
  if (readShard(info.shard) !== null)
    throw new ConfigError(`--against: ${dir} is one shard of a run; merge its shards first (bas merge)`);
  return { run: sameTasks(info, dir, '--against', 'compare with a run of this bas'), file };
}

/** Reads the run.json of a folder given as an input (merge); the folder must hold one. */
export async function readInputRun(dir: string): Promise<RunInfo> {
  const v = await readRunInfo(join(dir, RUN_FILE));
  if (v === null) throw new ConfigError(`${dir} is not a run folder (it has no ${RUN_FILE})`);
  if (v.model === undefined || v.n === undefined)
    throw new ConfigError(`${join(dir, RUN_FILE)} is not a bas run file (it has no "model" or "n")`);
  return v as RunInfo;
}

/** What the caller of `makeRunInfo` says; the versions of the code that made the run are filled in. */
type RunFields = Omit<RunInfo, 'bas_version' | 'node_version' | 'openai_version'>;

/**
 * The one constructor of a run's run.json: every writer (eval, score, merge) builds it here, so
 * each records the versions of the code that made it, in the same order of keys.
 */
export function makeRunInfo(fields: RunFields): RunInfo {
  // The versions lead, as they always have; a key keeps its place when the spread sets it.
  return {
    bas_version: BAS_VERSION,
    generator: null,
    prompt_version: null,
    node_version: process.version,
    openai_version: OPENAI_VERSION,
    ...fields,
  } as RunInfo;
}

/** Writes run.json atomically, every byte checked; on failure the previous run.json stays as it was. */
export function writeRunInfo(dir: string, info: RunInfo): void {
  writeFileAtomic(join(dir, RUN_FILE), `${stringifyRedacted(info, 2)}\n`, undefined, true);
}
