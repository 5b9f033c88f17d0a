/**
 * A report's data with every form the commands print or write it in, for the public API
 * (`compareRuns`, `leaderboard`, `readSweep`, `runSweep`): each renderer returns the same
 * string the command prints (text, `--markdown`, `--csv`, `--latex`, `--json`) or writes
 * (`--html`, `--svg`), with the columns chosen once. Nothing here prints or writes a file.
 */
import type { CompareColumn, LeaderboardColumn } from '../settings/choices.js';
import { renderComparison, type Comparison } from './compare.js';
import { renderComparisonColumns } from './compare-columns.js';
import { compareHtml } from './html/compare-data.js';
import { leaderboardSvg, sweepSvg } from './html/figure.js';
import { leaderboardPage } from './html/leaderboard-page.js';
import { sweepPage } from './html/sweep-page.js';
import type { Leaderboard } from './leaderboard.js';
import { renderLeaderboardCsv, renderLeaderboardLatex, renderLeaderboardMarkdown } from './leaderboard-export.js';
import { renderLeaderboard } from './leaderboard-text.js';
import { renderSweep, renderSweepCsv, type SweepResult } from './sweep.js';

/** A leaderboard and its forms; `data` is what `bas leaderboard --json` prints (`sweep`: the curves of sweep folders). */
export interface LeaderboardView {
  data: Leaderboard & { sweep?: SweepResult };
  /** The terminal table (`bas leaderboard`), with the curves' table after it when sweep folders were given. */
  text(): string;
  markdown(): string;
  csv(): string;
  /** LaTeX (booktabs); with `columns` chosen, the compact table for one column of a two-column paper. */
  latex(): string;
  /** The self-contained page of `--html`. */
  html(): string;
  /** The standalone dot-and-interval figure of `--svg`. */
  svg(): string;
  json(): string;
}

export function leaderboardView(
  lb: Leaderboard,
  curves: SweepResult | null,
  columns: readonly LeaderboardColumn[] | null,
): LeaderboardView {
  const data = curves ? { ...lb, sweep: curves } : lb;
  return {
    data,
    text: () => renderLeaderboard(lb, columns) + (curves ? `\nDifficulty curves\n${renderSweep(curves)}` : ''),
    markdown: () => renderLeaderboardMarkdown(lb, columns),
    csv: () => renderLeaderboardCsv(lb, columns),
    latex: () => renderLeaderboardLatex(lb, columns),
    html: () => leaderboardPage(lb, curves, columns),
    svg: () => leaderboardSvg(lb),
    json: () => JSON.stringify(data, null, 2) + '\n',
  };
}

/** A comparison and its forms; `data` is what `bas compare --json` prints. */
export interface ComparisonView {
  data: Comparison;
  /** What `bas compare` prints: the usual tables, or one table of the chosen columns. */
  text(): string;
  /**
   * The page of `--html`: the figures, and the diff of each comparable pair (flipped rollouts
   * first, each openable side by side), for which each run's results are read again.
   */
  html(): Promise<string>;
  json(): string;
}

export function comparisonView(c: Comparison, columns: readonly CompareColumn[] | null): ComparisonView {
  return {
    data: c,
    text: () => (columns === null ? renderComparison(c) : renderComparisonColumns(c, columns)),
    html: () => compareHtml(c, columns),
    json: () => JSON.stringify(c, null, 2) + '\n',
  };
}

/** A sweep's curves and their forms; `data` is what `bas sweep --json` prints. */
export interface SweepView {
  data: SweepResult;
  text(): string;
  csv(): string;
  html(): string;
  /** The standalone figure of `--svg`: a panel per measure, one curve per model. */
  svg(): string;
  json(): string;
}

export function sweepView(r: SweepResult): SweepView {
  return {
    data: r,
    text: () => renderSweep(r),
    csv: () => renderSweepCsv(r),
    html: () => sweepPage(r),
    svg: () => sweepSvg(r),
    json: () => JSON.stringify(r, null, 2) + '\n',
  };
}
