/**
 * bas as a library: the public API, `import { … } from 'bas-eval'`. A small typed surface
 * over the same code the CLI runs: generate tasks, render a prompt, score a reply, run an
 * eval, read a run folder and its summary. Nothing here prints, exits or installs a process
 * handler. docs/api.md describes it with a worked example.
 *
 * Money in the typed objects (`Task.key`, `Ledger` rows) is in integer cents; `taskToJson`
 * gives the JSON lines form of `bas gen`, with two-decimal strings.
 */
import { ConfigError } from './errors/index.js';
import { runEval as runPlan } from './engine/run-eval.js';
import type { EvalEvent, EvalResult } from './engine/events.js';
import * as std from './io/std.js';
import { readRun } from './report/read.js';
import { readComparison } from './report/compare.js';
import { findLeaderboardRuns, readLeaderboard } from './report/leaderboard-input.js';
import { readSweepFolder } from './report/sweep.js';
// The renderers (every HTML page and figure) load on the first call that needs them, as the
// commands load them: importing the library for generateTask or runEval does not pay for them.
import type { ComparisonView, LeaderboardView, SweepView } from './report/views.js';
import type { RankMeasure } from './report/leaderboard.js';
import { readApiOptions } from './settings/api-options.js';
import { readSweep as planSweep, type SweepFlags } from './commands/sweep-input.js';
import { planWithRuns } from './commands/eval-run.js';
import { runSweep as runPlannedSweep, type SweepEvent as PointEvent } from './engine/sweep.js';
import { writeSweepPlan, type SweepPlanPoint } from './runfile/sweep-file.js';
import { checkOutputs } from './settings/output-paths.js';
import { sweepFlagsOf, type SweepConfig } from './settings/sweep-config.js';
import { COMMAND_FLAGS } from './settings/command-flags.js';
import type { CompareColumn, LeaderboardColumn } from './settings/choices.js';
import type { RunFile } from './runfile/run-info.js';
import { API_SOURCE, checkEvalConfig, type EvalConfig } from './settings/eval-config.js';
import { timeOfRun, type RunTime } from './runfile/sessions.js';
import type { Summary } from './summary/summary.js';
import { MAX_TASKS, resolveTaskConfig } from './task/config.js';
import { generateTask as generate } from './task/generate.js';
import type { Ledger, Task, TaskConfig } from './task/types.js';
import { scoreReply as score } from './task/score.js';
import { keyInCents, type AnswerKeyJson } from './task/serialize.js';
import type { AnswerKey, Scores } from './task/types.js';

export type { EvalEvent, EvalOutcome, EvalResult } from './engine/events.js';
export type { EvalConfig } from './settings/eval-config.js';
export type { SweepConfig } from './settings/sweep-config.js';
export { buildPrompt, PROMPT_VERSION } from './task/prompt.js';
export { parseAnswer, type ParseResult, type Answer } from './task/answer.js';
export { taskToJson } from './task/serialize.js';
export { GENERATOR_VERSION } from './task/generate.js';
export { DEFAULT_TASK_CONFIG } from './task/config.js';
export type {
  AnswerKey,
  ChatMessage,
  Consistency,
  Ledger,
  Row,
  Scores,
  Task,
  TaskConfig,
  WrongBasCause,
} from './task/types.js';
export type { AnswerKeyJson } from './task/serialize.js';
export type { RolloutRecord } from './runfile/record.js';
export type { RunInfo, RunFile } from './runfile/run-info.js';
export type { PaceRecord, RunSession, RunTime, SessionSpend } from './runfile/sessions.js';
export type { RunStop, StopKind } from './engine/stop.js';
export type { Summary } from './summary/summary.js';
export type { ComparisonView, LeaderboardView, SweepView } from './report/views.js';
export type { Comparison, Pairing } from './report/compare.js';
export type { Leaderboard, LeaderboardGroup, LeaderboardRun } from './report/leaderboard.js';
export type { SweepResult, SweepPoint } from './report/sweep.js';
export type { CompareColumn, LeaderboardColumn, RankMeasure } from './settings/choices.js';
export type { Estimate, PairedBootstrap } from './summary/stats.js';
export type { Failure } from './endpoint/classify.js';
export {
  BasError,
  BudgetError,
  ConfigError,
  ErrorRateError,
  FatalRunError,
  InterruptedError,
  type BasErrorCode,
} from './errors/index.js';

/** How `runEval` runs: whether it continues a run, how to stop it and who hears its events. */
export interface RunEvalOptions {
  /**
   * The folder of a run to continue: its rollouts never recorded, or whose last record is an
   * error, run again, with its saved settings under those of `config` (which may change how it
   * runs, never what it measures).
   */
  resume?: string;
  /** Aborting it stops the run: no new rollout starts, those in flight are dropped (a resume redoes them). */
  signal?: AbortSignal;
  /** Called with every event, synchronously; it must not throw. */
  onEvent?: (event: EvalEvent) => void;
  /** Where the API key variable (and the endpoint's environment defaults) are read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Called once there is work to do, before any rollout starts (a resume has taken and read
   * its folder by then); a throw ends the call with that error and gives the folder back as it was.
   */
  preflight?: () => Promise<void>;
}

/**
 * Runs one eval, or with `resume` continues one, and resolves once run.json is final and the
 * folder is released. `config` takes the keys of a TOML run configuration, checked as a config
 * file is. Bad settings or folders reject with a ConfigError, a failing disk with a
 * FatalRunError; how the run itself went is the result's `outcome`.
 */
export async function runEval(config: EvalConfig = {}, options: RunEvalOptions = {}): Promise<EvalResult> {
  const env = options.env ?? std.env();
  const file = checkEvalConfig(config);
  const plan = await planWithRuns({}, file, API_SOURCE, env, options.resume);
  return runPlan(plan, { signal: options.signal, onEvent: options.onEvent, env, preflight: options.preflight });
}

/**
 * Task `index` (0, 1, 2 …) of a task configuration; missing values take the defaults (24
 * rows, fault rate 0.25, seed 20260826). The same configuration and index always give the
 * same task. Throws a ConfigError for a value out of range.
 */
export function generateTask(config: Partial<TaskConfig>, index: number): Task {
  const checked = resolveTaskConfig(config, {
    num_transactions: 'num_transactions',
    fault_rate: 'fault_rate',
    seed: 'seed',
  });
  if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_TASKS)
    throw new ConfigError(`index must be an integer from 0 to ${MAX_TASKS - 1}, got ${String(index)}`);
  return generate(checked, index);
}

/**
 * Grades `reply` against `key`: rewards, metrics and the per-label detail. The key may be
 * the typed one (`task.key`, integer cents) or a task file's (`"key"` of a `bas gen` line,
 * two-decimal strings). Throws a ConfigError naming the field when the key is neither, rather
 * than grading every figure as wrong. Given the task's `ledger` (`task.ledger`), the detail of
 * a parsed reply also says whether its BAS is the one its own faults imply, and why a wrong
 * one is wrong (`detail.consistency`, docs/benchmark.md).
 */
export function scoreReply(reply: string, key: AnswerKey | AnswerKeyJson, ledger?: Ledger): Scores {
  let checked: AnswerKey;
  try {
    checked = keyInCents(key);
  } catch (err) {
    throw new ConfigError(`scoreReply: ${(err as Error).message}`);
  }
  return score(reply, checked, ledger);
}

/** A run folder read back: what `bas report` starts from. */
export interface RunFolderData {
  dir: string;
  /** run.json, checked (null when the folder holds only results.jsonl); `status` is `interrupted` for a run whose writer died. */
  run: RunFile | null;
  /** Every rollout's winning record, summarised. */
  summary: Summary;
  /** Rollouts the run set out to do, when run.json says. */
  expected: number | null;
  /** The time the run took over all its sessions. */
  time: RunTime;
  /** Plain sentences about its state (in progress, interrupted, incomplete, mixed configurations). */
  notes: string[];
  /** What reading it skipped (a torn last line), in words. */
  warnings: string[];
}

/**
 * Reads a run folder (or a bare results.jsonl) and summarises it. Rejects with a ConfigError
 * when it is not a run, is damaged, or holds no rollout yet.
 */
export async function readRunFolder(path: string): Promise<RunFolderData> {
  const warnings: string[] = [];
  const data = await readRun(path, (message) => warnings.push(message));
  return {
    dir: data.dir,
    run: data.run,
    summary: data.summary,
    expected: data.expected,
    time: timeOfRun(data.run),
    notes: data.notes,
    warnings,
  };
}

/** How `compareRuns` pairs the runs and which columns its text and page show. */
export interface CompareOptions {
  /** Seed of the paired bootstrap (default 1), as `bas compare --seed`. */
  seed?: number;
  /** Bootstrap resamples, 100 to 1,000,000 (default 10,000), as `--resamples`. */
  resamples?: number;
  /** One table of these columns in `text()` and `html()`, as `--columns` (default: the usual tables). */
  columns?: CompareColumn[];
}

/**
 * Compares run folders as `bas compare` does: the first is the baseline A, and every other
 * run that shares tasks with it gets the paired difference in reward with its bootstrap
 * interval and verdict. `data` is what `bas compare --json` prints; `text()` and `html()`
 * what it prints and writes. Rejects with a ConfigError for fewer than two runs, a run named
 * twice, an unreadable folder or a bad option.
 */
export async function compareRuns(
  dirs: readonly string[],
  options: CompareOptions = {},
): Promise<ComparisonView & { warnings: string[] }> {
  const opts = readApiOptions(COMMAND_FLAGS.compare, ['seed', 'resamples', 'columns'], options, 'compareRuns()');
  const warnings: string[] = [];
  const c = await readComparison(dirs, opts.seed, opts.resamples, (m) => warnings.push(m));
  const { comparisonView } = await import('./report/views.js');
  return { ...comparisonView(c, opts.columns), warnings };
}

/** How `leaderboard` ranks and which columns its tables show. */
export interface LeaderboardOptions {
  /** The measure runs are ranked by (default `reward_errors_as_zero`), as `--by`. */
  by?: RankMeasure;
  /** Also rank runs that did not finish within their error budget (marked *), as `--include-incomplete`. */
  include_incomplete?: boolean;
  /** Seed of the paired comparisons' bootstrap (default 1). */
  seed?: number;
  /** Bootstrap resamples (default 10,000). */
  resamples?: number;
  /** The results table's columns, in this order, in every format but JSON, as `--columns` (default: all). */
  columns?: LeaderboardColumn[];
}

/**
 * Ranks every run found in `dirs` (run folders, results files, or folders of runs such as
 * `runs/` or a sweep folder, two levels deep) as `bas leaderboard` does: groups of runs on the
 * same tasks, best first, each run with its tier (runs no paired test at 95%, Holm-corrected,
 * tells apart share one). `data` is what `--json` prints; the renderers give each format.
 * A run found inside a folder that cannot be read is left out and named in `warnings`.
 */
export async function leaderboard(
  dirs: readonly string[],
  options: LeaderboardOptions = {},
): Promise<LeaderboardView & { warnings: string[] }> {
  const keys = ['by', 'includeIncomplete', 'seed', 'resamples', 'columns'] as const;
  const opts = readApiOptions(COMMAND_FLAGS.leaderboard, keys, options, 'leaderboard()');
  const warnings: string[] = [];
  const runs = findLeaderboardRuns(dirs);
  const settings = {
    by: opts.by as RankMeasure,
    seed: opts.seed,
    resamples: opts.resamples,
    includeIncomplete: opts.includeIncomplete,
  };
  const read = await readLeaderboard(dirs, runs, settings, (m) => warnings.push(m));
  const { leaderboardView } = await import('./report/views.js');
  return { ...leaderboardView(read.leaderboard, read.curves, opts.columns), warnings };
}

/**
 * Reads a `bas sweep` folder back: its curves (reward, bas_correct and fault_audit against
 * the rows or the reasoning budget, one per model), as `bas sweep --resume` of a finished
 * sweep prints them, with the standalone figure of `--svg` as `svg()`.
 */
export async function readSweep(dir: string): Promise<SweepView & { warnings: string[] }> {
  const warnings: string[] = [];
  const r = await readSweepFolder(dir, 'readSweep()', (m) => warnings.push(m));
  const { sweepView } = await import('./report/views.js');
  return { ...sweepView(r), warnings };
}

/** A point of a sweep: its model, its folder and its place on the grid (rows, fault rate, budget). */
export interface SweepPointInfo {
  model: string;
  dir: string;
  /** True when its folder held a run already, which it continues. */
  resumed: boolean;
  num_transactions: number;
  /** Null: the model's settings' fault rate. */
  fault_rate: number | null;
  reasoning_effort?: string;
  max_tokens?: number;
}

/** What `runSweep`'s `onEvent` hears: a point starting, each event of its run (as `runEval`'s), and how it ended. */
export type SweepEvent =
  | { type: 'point-started'; index: number; point: SweepPointInfo }
  | { type: 'point-event'; index: number; point: SweepPointInfo; event: EvalEvent }
  | { type: 'point-ended'; index: number; point: SweepPointInfo; result: EvalResult }
  /** A point an earlier session recorded as cut off (every reply cut by the token limit): not run again. */
  | { type: 'point-kept'; index: number; point: SweepPointInfo }
  | { type: 'point-failed'; index: number; point: SweepPointInfo };

/** How `runSweep` runs: whether it continues a sweep, how to stop it and who hears its events. */
export interface RunSweepOptions {
  /** The folder of a sweep to continue, with its saved models, points and settings (`config` must then be `{}`). */
  resume?: string;
  /** Aborting it stops the running point; the points after it do not run. */
  signal?: AbortSignal;
  /** Called with every event, synchronously; it must not throw. */
  onEvent?: (event: SweepEvent) => void;
}

/** How a sweep went and, once every point ran, its curves. */
export interface SweepRunResult {
  dir: string;
  /**
   * `done`: every point ran (`failed`: the indices of those over their error budget, with
   * nothing completed or stopped at their budget; a resume runs them again; `cutOff`: those whose
   * every reply was cut off by the token limit, recorded as 0 and never run again). `stopped`: point
   * `index` was interrupted or stopped by its endpoint, and the points after it did not run.
   */
  outcome:
    { kind: 'done'; failed: number[]; cutOff: number[] } | { kind: 'stopped'; index: number; result: EvalResult };
  /** The curves (as `readSweep` gives them), null unless `done`. */
  sweep: (SweepView & { warnings: string[] }) | null;
}

function pointInfo(p: { spec: SweepPlanPoint; model: string; dir: string; resumed: boolean }): SweepPointInfo {
  const { folder: _, model: __, ...grid } = p.spec;
  return { model: p.model, dir: p.dir, resumed: p.resumed, ...grid };
}

function publicEvent(e: PointEvent): SweepEvent {
  const point = pointInfo(e.point);
  if (e.type === 'point-event') return { type: e.type, index: e.index, point, event: e.event };
  if (e.type === 'point-ended') return { type: e.type, index: e.index, point, result: e.result };
  return { type: e.type, index: e.index, point };
}

/**
 * Runs a sweep as `bas sweep` does: one eval per model and point of the grid, each in its own
 * run folder under `output`, one after the other, and reads the curves back. `config` takes
 * the keys of a TOML run configuration with `models`, and the axis as a list:
 * `task.num_transactions` (the rows), or the reasoning budget, `sampling.reasoning_effort` or
 * `sampling.max_tokens` (with `task.fault_rate` listing several too, if wanted). The key is
 * read from the environment, as `bas sweep` reads it. Rejects with a ConfigError for bad
 * settings or folders, or with the error of a point's run that could not start.
 */
export async function runSweep(
  config: SweepConfig | Record<string, never>,
  options: RunSweepOptions = {},
): Promise<SweepRunResult> {
  if (options.resume !== undefined && Object.keys(config ?? {}).length > 0)
    throw new ConfigError('runSweep() with resume continues a sweep with its saved settings: give {} as its config');
  const flags: SweepFlags =
    options.resume === undefined
      ? (sweepFlagsOf(config as SweepConfig, 'runSweep()') as SweepFlags)
      : { resume: options.resume };
  const run = await planSweep([], flags);
  if (run.fresh) {
    checkOutputs([{ flag: 'output', path: run.dir, kind: 'folder' }]);
    await writeSweepPlan(run.dir, run.file);
  }
  const onEvent = options.onEvent;
  const outcome = await runPlannedSweep(run, {
    signal: options.signal,
    onEvent: onEvent ? (e) => onEvent(publicEvent(e)) : undefined,
  });
  if (outcome.kind === 'failed') throw outcome.error;
  if (outcome.kind === 'stopped')
    return { dir: run.dir, outcome: { kind: 'stopped', index: outcome.index, result: outcome.result }, sweep: null };
  const failed = outcome.failed.map((f) => f.index);
  return { dir: run.dir, outcome: { kind: 'done', failed, cutOff: outcome.cutOff }, sweep: await readSweep(run.dir) };
}
