/**
 * `bas leaderboard DIR...`: every run found in the folders given, ranked best first within
 * groups of runs on the same tasks, as text, JSON, Markdown or an HTML page.
 *
 * A DIR is a run folder, a results file, or a folder of run folders, such as `runs/` or a
 * `bas sweep` folder, looked into by runfile's one rule of discovery (runfile/discover.ts).
 */
import { ConfigError } from '../errors/index.js';
import { fileSink, withSink } from '../io/output.js';
import type { Leaderboard, RankMeasure } from '../report/leaderboard.js';
import { findLeaderboardRuns, readLeaderboard } from '../report/leaderboard-input.js';
import { renderLeaderboard } from '../report/leaderboard-text.js';
import {
  renderLeaderboardCsv,
  renderLeaderboardLatex,
  renderLeaderboardMarkdown,
} from '../report/leaderboard-export.js';
import { stderrWarn } from '../runfile/read.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { checkOutputs } from '../settings/output-paths.js';
import { renderSweep, type SweepResult } from '../report/sweep.js';
import * as std from '../io/std.js';

type LeaderboardOpts = ReturnType<typeof readFlags<typeof COMMAND_FLAGS.leaderboard>>;

/** The files asked for: the HTML page (with the sweeps' curves) and the SVG figure. */
async function writeFiles(lb: Leaderboard, curves: SweepResult | null, opts: LeaderboardOpts): Promise<void> {
  if (opts.html) {
    const { leaderboardPage } = await import('../report/html/leaderboard-page.js');
    const html = leaderboardPage(lb, curves, opts.columns);
    await withSink(fileSink(opts.html, '--html'), async (sink) => sink.write(html));
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
  const runs = findLeaderboardRuns(dirs);
  // Checked before any run is read: the page may not be written over one of them.
  checkOutputs([
    { flag: '--html', path: opts.html, kind: 'file', inputs: runs.inputs },
    { flag: '--svg', path: opts.svg, kind: 'file', inputs: runs.inputs },
  ]);
  const settings = {
    by: opts.by as RankMeasure,
    seed: opts.seed,
    resamples: opts.resamples,
    includeIncomplete: opts.includeIncomplete === true,
  };
  const { leaderboard: lb, curves } = await readLeaderboard(dirs, runs, settings, stderrWarn);
  await writeFiles(lb, curves, opts);
  printLeaderboard(lb, curves, formats[0], opts);
}
