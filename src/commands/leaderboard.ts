/**
 * `bas leaderboard DIR...`: every run found in the folders given, ranked best first within
 * groups of runs on the same tasks, as text, JSON, Markdown or an HTML page.
 *
 * A DIR is a run folder (it holds results.jsonl), a results file, or a folder of run
 * folders, such as `runs/` or a `bas sweep` folder, looked into two levels deep.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { fileSink, refuseOutputOverInput, withSink } from '../io/output.js';
import { buildLeaderboard, RANK_MEASURES, type RankMeasure } from '../report/leaderboard.js';
import { renderLeaderboard } from '../report/leaderboard-text.js';
import {
  renderLeaderboardCsv,
  renderLeaderboardLatex,
  renderLeaderboardMarkdown,
} from '../report/leaderboard-export.js';
import { readRun, type RunData } from '../report/read.js';
import { refuseRepeatedRuns } from '../report/run-names.js';
import { runInputs, stderrWarn } from '../runfile/read.js';
import { RESULTS_FILE } from '../runfile/files.js';
import { parseCount } from '../task/config.js';

export interface LeaderboardOptions {
  json?: boolean;
  markdown?: boolean;
  csv?: boolean;
  latex?: boolean;
  includeIncomplete?: boolean;
  html?: string;
  by?: string;
  seed?: string;
  resamples?: string;
}

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

function parseBy(value: string | undefined): RankMeasure {
  if (value === undefined) return 'reward_errors_as_zero';
  if ((RANK_MEASURES as readonly string[]).includes(value)) return value as RankMeasure;
  throw new ConfigError(`--by must be one of ${RANK_MEASURES.join(', ')}, got ${JSON.stringify(value)}`);
}

export async function leaderboard(dirs: string[], opts: LeaderboardOptions): Promise<void> {
  const seed = opts.seed === undefined ? 1 : parseCount(opts.seed, '--seed', 0, 2 ** 32 - 1);
  const resamples = opts.resamples === undefined ? 10_000 : parseCount(opts.resamples, '--resamples', 100, 1_000_000);
  const by = parseBy(opts.by);
  const formats = (['json', 'markdown', 'csv', 'latex'] as const).filter((f) => opts[f]);
  if (formats.length > 1)
    throw new ConfigError(
      `give one of --json, --markdown, --csv and --latex, not ${formats.map((f) => `--${f}`).join(' and ')}`,
    );
  if (dirs.length === 0) throw new ConfigError('bas leaderboard needs at least one run folder or folder of runs');
  const found = dirs.map(findRuns);
  refuseRepeatedRuns(
    found.flatMap((f) => f.runs),
    'leaderboard',
  );
  const runs: RunData[] = [];
  for (const f of found) {
    for (const dir of f.runs) {
      try {
        runs.push(await readRun(dir));
      } catch (err) {
        // A run found inside a folder that cannot be read (say, one just started) is left
        // out with a warning; a run named on the command line fails the command.
        if (f.named || !(err instanceof ConfigError)) throw err;
        stderrWarn(`leaderboard: ${dir} left out: ${err.message}`);
      }
    }
  }
  if (runs.length === 0) throw new ConfigError('leaderboard: none of the runs found could be read');
  const lb = buildLeaderboard(runs, { by, seed, resamples, includeIncomplete: opts.includeIncomplete === true });
  if (opts.html) {
    refuseOutputOverInput(
      opts.html,
      '--html',
      runs.flatMap((r) => runInputs(r.dir)),
    );
    const { leaderboardPage } = await import('../report/html/leaderboard-page.js');
    await withSink(fileSink(opts.html, '--html'), async (sink) => sink.write(leaderboardPage(lb)));
  }
  const render = {
    json: () => JSON.stringify(lb, null, 2) + '\n',
    markdown: renderLeaderboardMarkdown,
    csv: renderLeaderboardCsv,
    latex: renderLeaderboardLatex,
  };
  const format = formats[0];
  process.stdout.write(format ? render[format](lb) : renderLeaderboard(lb));
  if (opts.html && !format) process.stdout.write(`HTML leaderboard written to ${opts.html}\n`);
}
