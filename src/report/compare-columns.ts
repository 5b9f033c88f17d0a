/**
 * The columns `bas compare --columns` chooses from, declared once for the text and the HTML
 * page (the machinery is the leaderboard's: columns.ts): each run's label, name and folder,
 * its counts, its measures (mean over 95% interval), and its paired difference against the
 * baseline A with the verdict.
 */
import type { CompareColumn } from '../settings/choices.js';
import type { PairedBootstrap } from '../summary/stats.js';
import { columnsText, pickColumns, type Column } from './columns.js';
import { comparisonNotes, pairingHeading, type Comparison } from './compare.js';
import { COMPARE_MEASURES } from '../settings/choices.js';
import { terminalText } from '../io/terminal-text.js';
import { fmtInt, signed } from './tables.js';

/** One run of a comparison, with its pairing against the baseline (null for the baseline itself). */
export interface CompareRow {
  run: Comparison['runs'][number];
  pairing: Comparison['pairings'][number] | null;
}

/** "+0.120\n[+0.050, +0.190]\nB better", "baseline", or why there is none. */
function vsText(r: CompareRow, pick: (p: NonNullable<CompareRow['pairing']>) => PairedBootstrap | null): string {
  const p = r.pairing;
  if (p === null) return 'baseline';
  const d = pick(p);
  const verdict = p.verdict ?? (p.comparable ? '–' : 'not comparable');
  if (!d || d.mean === null) return verdict;
  // Mean, interval and verdict on lines of their own, so a narrow column never breaks a number.
  const ci = d.ci95 ? `\n[${signed(d.ci95[0])}, ${signed(d.ci95[1])}]` : '';
  return `${signed(d.mean)}${ci}\n${verdict}`;
}

const measure = (m: (typeof COMPARE_MEASURES)[number]): Column<CompareRow, Comparison, CompareColumn> => ({
  id: m,
  head: m === 'reward_errors_as_zero' ? 'reward (errors as 0)' : m,
  align: 'right',
  value: (r) => ({ est: r.run.measures[m], digits: m === 'num_flagged' ? 2 : 3 }),
});

export const COMPARE_TABLE: Column<CompareRow, Comparison, CompareColumn>[] = [
  { id: 'run', head: 'run', align: 'left', value: (r) => r.run.label },
  { id: 'name', head: 'name', align: 'left', value: (r) => r.run.name },
  { id: 'folder', head: 'folder', align: 'left', value: (r) => r.run.dir },
  { id: 'tasks', head: 'tasks', align: 'right', value: (r) => fmtInt(r.run.tasks) },
  { id: 'rollouts', head: 'rollouts', align: 'right', value: (r) => fmtInt(r.run.rollouts) },
  { id: 'completed', head: 'completed', align: 'right', value: (r) => fmtInt(r.run.completed) },
  { id: 'errors', head: 'errors', align: 'right', value: (r) => fmtInt(r.run.errors) },
  ...COMPARE_MEASURES.map(measure),
  { id: 'vs_a', head: 'reward − A [95% CI]', align: 'left', value: (r) => vsText(r, (p) => p.diff) },
  {
    id: 'vs_a_errors_as_zero',
    head: 'reward − A (errors as 0)',
    align: 'left',
    value: (r) => vsText(r, (p) => p.diff_errors_as_zero),
  },
];

/** The rows of a comparison: every run, each with its pairing against the baseline. */
export function compareRows(c: Comparison): CompareRow[] {
  return c.runs.map((run, i) => ({ run, pairing: i === 0 ? null : (c.pairings[i - 1] ?? null) }));
}

/** The columns `--columns` names, in its order. */
function chosenCompareColumns(ids: readonly CompareColumn[]): Column<CompareRow, Comparison, CompareColumn>[] {
  return pickColumns(COMPARE_TABLE, ids);
}

/**
 * `bas compare --columns` as text: the runs in one table of the chosen columns, within 80
 * columns (names, folders and verdicts wrap), then the comparison's notes.
 */
export function renderComparisonColumns(c: Comparison, ids: readonly CompareColumn[]): string {
  const cols = chosenCompareColumns(ids);
  const wrap = cols.flatMap((col, i) => (col.align === 'left' ? [i] : []));
  const paired = ids.some((id) => id.startsWith('vs_a'));
  const out = [
    ...(paired ? [pairingHeading(c)] : []),
    columnsText(cols, compareRows(c), c, wrap),
    ...comparisonNotes(c),
  ];
  // Names, folders and notes come from run folders: made safe like every table's cells.
  return terminalText(out.join('\n')) + '\n';
}
