/**
 * Tables whose columns a user chooses (`--columns` of `bas leaderboard` and `bas compare`):
 * each column declared once, by name, with a head, an alignment and how a row's cell is made;
 * a cell is text or an estimate, which each format writes its own way (stacked in a terminal
 * and on a page, inline in Markdown, CSV and LaTeX), the mean and its interval always in the
 * same number of decimals. The columns themselves live beside their command's data
 * (leaderboard-table.ts, compare-columns.ts).
 */
import type { Estimate } from '../summary/stats.js';
import { fitTable } from './fit-table.js';
import { fmtEstimate } from './tables.js';

export type Cell = string | { est: Estimate; digits: number };

/** A column of rows `R` (in a context `C`: the whole leaderboard or comparison), named `Id` for `--columns`. */
export interface Column<R, C, Id extends string = string> {
  /** The name `--columns` knows it by (columns shown only by default have none). */
  id?: Id;
  head: string;
  align: 'left' | 'right';
  value: (r: R, context: C) => Cell;
}

/** A cell as one line of text: an estimate as "0.538 [0.490, 0.580]". */
export function inlineCell(c: Cell): string {
  return typeof c === 'string' ? c : fmtEstimate(c.est, c.digits);
}

/** A cell as lines: an estimate as the mean over its interval. */
export function stackedCell(c: Cell): string {
  return typeof c === 'string' ? c : fmtEstimate(c.est, c.digits, '\n');
}

/** The columns `ids` names, in its order (each id is one of `all`'s: the flag's parser checked it). */
export function pickColumns<R, C, Id extends string>(
  all: readonly Column<R, C, Id>[],
  ids: readonly Id[],
): Column<R, C, Id>[] {
  return ids.map((id) => all.find((c) => c.id === id)!);
}

/**
 * Chosen columns as one table for a terminal, within 80 columns: cells stacked, heads broken
 * before a parenthesis and after a slash, the columns `wrap` names wrapped to fit.
 */
export function columnsText<R, C>(
  cols: readonly Column<R, C>[],
  rows: readonly R[],
  context: C,
  wrap: number[] = [],
): string {
  return fitTable(
    cols.map((c) => c.head.replace(/ \(/, '\n(').replace(' / ', ' /\n')),
    rows.map((r) => cols.map((c) => stackedCell(c.value(r, context)))),
    { align: cols.map((c) => c.align), separators: true, wrap },
  );
}
