/**
 * What a leaderboard reads, for `bas leaderboard` and the API's `leaderboard()`: every run
 * found in the folders given, and the curves of those that are sweep folders.
 *
 * A DIR is a run folder, a results file, or a folder of run folders, such as `runs/` or a
 * `bas sweep` folder, looked into by runfile's one rule of discovery.
 */
import { statSync } from 'node:fs';
import { ConfigError } from '../errors/index.js';
import { FIND_DEPTH, findRunFolders } from '../runfile/discover.js';
import { runInputs, type Warn } from '../runfile/read.js';
import { isSweepFolder } from '../runfile/sweep-file.js';
import { buildLeaderboard, type Leaderboard, type RankMeasure } from './leaderboard.js';
import { readRun, type RunData } from './read.js';
import { refuseRepeatedRuns } from './run-names.js';
import { overlaySweeps, readSweepFolder, type SweepResult } from './sweep.js';

/**
 * The run folders a DIR stands for, and whether it named them itself (its own failures are
 * fatal) or they were found inside it (one unreadable run among many is skipped). Inside a
 * folder, runs are found by runfile's one rule (runfile/discover.ts): six levels down, links
 * to folders not followed; a DIR named here may itself be a link.
 */
function findRuns(path: string): { runs: string[]; named: boolean } {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ConfigError(`leaderboard: ${path} does not exist`);
  }
  if (st.isFile()) return { runs: [path], named: true };
  const found = findRunFolders(path).runs;
  if (found.length === 1 && found[0]!.id === '.') return { runs: [path], named: true };
  if (found.length === 0)
    throw new ConfigError(
      `leaderboard: ${path} holds no run folder (none with results.jsonl or run.json in it or in its sub-folders ${FIND_DEPTH} levels down; a linked folder is not looked into: name it itself)`,
    );
  // A folder found (not named) that cannot be read as a run (no results yet, a link or a FIFO
  // where its results file should be) is left out by the read, with its reason (readFound).
  return { runs: found.map((r) => r.dir), named: false };
}

/** The runs a leaderboard of `dirs` reads, found before any is read (a repeat refused), and the files they are. */
export interface FoundRuns {
  found: Array<{ runs: string[]; named: boolean }>;
  /** Every file a report of these runs reads: an output may not be written over one. */
  inputs: string[];
}

/** Finds the runs of `dirs` (each a run, a results file or a folder of runs); refuses none found or one named twice. */
export function findLeaderboardRuns(dirs: readonly string[]): FoundRuns {
  if (dirs.length === 0) throw new ConfigError('bas leaderboard needs at least one run folder or folder of runs');
  const found = dirs.map(findRuns);
  const all = found.flatMap((f) => f.runs);
  refuseRepeatedRuns(all, 'leaderboard');
  return { found, inputs: all.flatMap(runInputs) };
}

/**
 * Every run found, by folder; one found inside a folder that cannot be read (say, just
 * started) is left out, and `warn` hears why.
 */
async function readFound(found: FoundRuns['found'], warn: Warn): Promise<Map<string, RunData>> {
  const runs = new Map<string, RunData>();
  for (const f of found) {
    for (const dir of f.runs) {
      try {
        runs.set(dir, await readRun(dir, warn));
      } catch (err) {
        // A run named on the command line fails the command.
        if (f.named || !(err instanceof ConfigError)) throw err;
        warn(`leaderboard: ${dir} left out: ${err.message}`);
      }
    }
  }
  if (runs.size === 0) throw new ConfigError('leaderboard: none of the runs found could be read');
  return runs;
}

/** How a leaderboard ranks: the measure, the bootstrap of its comparisons, and whether unfinished runs rank. */
export interface LeaderboardSettings {
  by: RankMeasure;
  seed: number;
  resamples: number;
  includeIncomplete: boolean;
}

/**
 * The leaderboard of the runs found, and the curves of the folders given that are sweeps
 * (every model of every sweep one curve, docs/sweep.md), null when none is. A sweep's points
 * are the runs read for the leaderboard, not read again.
 */
export async function readLeaderboard(
  dirs: readonly string[],
  runs: FoundRuns,
  settings: LeaderboardSettings,
  warn: Warn,
): Promise<{ leaderboard: Leaderboard; curves: SweepResult | null }> {
  const data = await readFound(runs.found, warn);
  const leaderboard = buildLeaderboard([...data.values()], settings);
  const sweeps: SweepResult[] = [];
  for (const d of dirs) if (isSweepFolder(d)) sweeps.push(await readSweepFolder(d, 'leaderboard', warn, data));
  return { leaderboard, curves: sweeps.length > 0 ? overlaySweeps(sweeps) : null };
}
