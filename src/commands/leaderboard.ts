/**
 * `bas leaderboard DIR...`: every run found in the folders given, ranked best first within
 * groups of runs on the same tasks, as text, JSON, Markdown or an HTML page.
 *
 * A DIR is a run folder (it holds results.jsonl), a results file, or a folder of run
 * folders, such as `runs/` or a `bas sweep` folder, looked into two levels deep.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { fileSink, withSink } from '../io/output.js';
import { buildLeaderboard, type Leaderboard, type RankMeasure } from '../report/leaderboard.js';
import { renderLeaderboard } from '../report/leaderboard-text.js';
import {
  renderLeaderboardCsv,
  renderLeaderboardLatex,
  renderLeaderboardMarkdown,
} from '../report/leaderboard-export.js';
import { readRun, type RunData } from '../report/read.js';
import { refuseRepeatedRuns } from '../report/run-names.js';
import { runInputs, stderrWarn } from '../runfile/read.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { checkOutputs } from '../settings/output-paths.js';
import { RESULTS_FILE } from '../runfile/files.js';
import { isSweepFolder } from '../runfile/sweep-file.js';
import { overlaySweeps, readSweepFolder, renderSweep, type SweepResult } from '../report/sweep.js';
import * as std from '../io/std.js';

/** A folder holding results.jsonl is a run. */
function isRun(dir: string): boolean {
  try {
    return statSync(join(dir, RESULTS_FILE)).isFile();
  } catch {
    return false;
  }
}

function subfolders(dir: string): string[] {
  try {
    // Linked folders count (runs are often linked into a results folder); the search is two
    // levels deep, so a link loop cannot run away.
    return readdirSync(dir)
      .filter((n) => !n.startsWith('.'))
      .sort()
      .map((n) => join(dir, n))
      .filter((p) => {
        try {
          return statSync(p).isDirectory();
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/**
 * The run folders a DIR stands for, and whether it named them itself (its own failures are
 * fatal) or they were found inside it (one unreadable run among many is skipped).
 */
function findRuns(path: string): { runs: string[]; named: boolean } {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ConfigError(`leaderboard: ${path} does not exist`);
  }
  if (st.isFile() || isRun(path)) return { runs: [path], named: true };
  const runs: string[] = [];
  for (const sub of subfolders(path)) {
    if (isRun(sub)) runs.push(sub);
    else for (const subsub of subfolders(sub)) if (isRun(subsub)) runs.push(subsub);
  }
  if (runs.length === 0)
    throw new ConfigError(
      `leaderboard: ${path} holds no run folder (no results.jsonl in it or in its sub-folders two levels down)`,
    );
  return { runs, named: false };
}

type LeaderboardOpts = ReturnType<typeof readFlags<typeof COMMAND_FLAGS.leaderboard>>;

/** Every run found; one found inside a folder that cannot be read (say, just started) is left out with a warning. */
async function readFound(found: Array<{ runs: string[]; named: boolean }>): Promise<RunData[]> {
  const runs: RunData[] = [];
  for (const f of found) {
    for (const dir of f.runs) {
      try {
        runs.push(await readRun(dir));
      } catch (err) {
        // A run named on the command line fails the command.
        if (f.named || !(err instanceof ConfigError)) throw err;
        stderrWarn(`leaderboard: ${dir} left out: ${err.message}`);
      }
    }
  }
  if (runs.length === 0) throw new ConfigError('leaderboard: none of the runs found could be read');
  return runs;
}

/** The files asked for: the HTML page (with the sweeps' curves) and the SVG figure. */
async function writeFiles(lb: Leaderboard, curves: SweepResult | null, opts: LeaderboardOpts): Promise<void> {
  if (opts.html) {
    const { leaderboardPage } = await import('../report/html/leaderboard-page.js');
    const { sweepFigures } = await import('../report/html/sweep-page.js');
    const extra = curves ? `<section><h2>Difficulty curves</h2>${sweepFigures(curves)}</section>` : '';
    await withSink(fileSink(opts.html, '--html'), async (sink) => sink.write(leaderboardPage(lb, extra, opts.columns)));
  }
  if (opts.svg) {
    const { leaderboardSvg } = await import('../report/html/figure.js');
    await withSink(fileSink(opts.svg, '--svg'), async (sink) => sink.write(leaderboardSvg(lb)));
  }
}

/** The leaderboard on standard output, in the one format asked for or as text. */
function printLeaderboard(
  lb: Leaderboard,
  curves: SweepResult | null,
  format: Format | undefined,
  opts: LeaderboardOpts,
): void {
  const render = {
    json: () => JSON.stringify(curves ? { ...lb, sweep: curves } : lb, null, 2) + '\n',
    markdown: renderLeaderboardMarkdown,
    csv: renderLeaderboardCsv,
    latex: renderLeaderboardLatex,
  };
  const text = format
    ? render[format](lb, opts.columns)
    : renderLeaderboard(lb, opts.columns) + (curves ? `\nDifficulty curves\n${renderSweep(curves)}` : '');
  std.stdout().write(text);
  if (opts.html && !format) std.stdout().write(`HTML leaderboard written to ${opts.html}\n`);
  if (opts.svg && !format) std.stdout().write(`SVG figure written to ${opts.svg}\n`);
}

const FORMATS = ['json', 'markdown', 'csv', 'latex'] as const;
type Format = (typeof FORMATS)[number];

export async function leaderboard(dirs: string[], given: Record<string, unknown>): Promise<void> {
  const opts = readFlags(COMMAND_FLAGS.leaderboard, given);
  const formats = FORMATS.filter((f) => opts[f]);
  if (formats.length > 1)
    throw new ConfigError(
      `give one of --json, --markdown, --csv and --latex, not ${formats.map((f) => `--${f}`).join(' and ')}`,
    );
  if (dirs.length === 0) throw new ConfigError('bas leaderboard needs at least one run folder or folder of runs');
  const found = dirs.map(findRuns);
  const all = found.flatMap((f) => f.runs);
  refuseRepeatedRuns(all, 'leaderboard');
  // Checked before any run is read: the page may not be written over one of them.
  const inputs = all.flatMap(runInputs);
  checkOutputs([
    { flag: '--html', path: opts.html, kind: 'file', inputs },
    { flag: '--svg', path: opts.svg, kind: 'file', inputs },
  ]);
  const runs = await readFound(found);
  const lb = buildLeaderboard(runs, {
    by: opts.by as RankMeasure,
    seed: opts.seed,
    resamples: opts.resamples,
    includeIncomplete: opts.includeIncomplete === true,
  });
  // Sweep folders are also drawn as curves, every model of every folder one (docs/sweep.md).
  const sweeps: SweepResult[] = [];
  for (const d of dirs) if (isSweepFolder(d)) sweeps.push(await readSweepFolder(d, 'leaderboard'));
  const curves = sweeps.length > 0 ? overlaySweeps(sweeps) : null;
  await writeFiles(lb, curves, opts);
  printLeaderboard(lb, curves, formats[0], opts);
}
