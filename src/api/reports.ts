/**
 * Reading runs back from a program, as the report commands read them: one run folder, a
 * comparison, a leaderboard, a sweep folder. The renderers (every HTML page and figure) load on
 * the first call that needs them, as the commands load them: importing the library for
 * generateTask or runEval does not pay for them.
 */
import { readRun } from '../report/read.js';
import { readComparison } from '../report/compare.js';
import { findLeaderboardRuns, readLeaderboard } from '../report/leaderboard-input.js';
import { readSweepFolder } from '../report/sweep.js';
import type { ComparisonView, LeaderboardView, SweepView } from '../report/views.js';
import type { RankMeasure } from '../report/leaderboard.js';
import { readApiOptions } from '../settings/api-options.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import type { CompareColumn, LeaderboardColumn } from '../settings/choices.js';
import type { RunFile } from '../runfile/run-info.js';
import { timeOfRun, type RunTime } from '../runfile/sessions.js';
import type { Summary } from '../summary/summary.js';

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
  const { comparisonView } = await import('../report/views.js');
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
  const { leaderboardView } = await import('../report/views.js');
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
  const { sweepView } = await import('../report/views.js');
  return { ...sweepView(r), warnings };
}
