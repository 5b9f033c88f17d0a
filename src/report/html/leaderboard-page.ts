/**
 * The HTML page of `bas leaderboard`: per group of comparable runs, the results table (the
 * columns of leaderboard-table.ts, in two tables so the page fits a 1280-pixel window), the
 * runs not ranked with why, how each run was made, and a bar chart of the ranking measure
 * with 95% whiskers. Every name and folder is escaped; long ones wrap at their separators,
 * never mid-word.
 */
import { measureName, measureText, rankText, vsBestText, type Leaderboard } from '../leaderboard.js';
import { chosenColumns, groupRows, PROVENANCE_COLUMNS, RESULT_COLUMNS, stackedCell } from '../leaderboard-table.js';
import type { LeaderboardColumn } from '../../settings/choices.js';
import { fmt, fmtEstimate, fmtInt } from '../tables.js';
import { escapeHtml } from './escape.js';
import { htmlTable, page } from './page.js';
import { barChart } from './svg.js';
import { sweepFigures } from './sweep-page.js';
import type { SweepResult } from '../sweep.js';
import { atLeastCell } from '../cost.js';

function usd(v: number | null): string {
  return v === null ? '–' : `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

const FIRST = [
  '#',
  'tier',
  'run',
  'date',
  'n × r',
  'completed / errored',
  'reward (errors as 0)',
  'reward',
  'bas_correct',
];
const SECOND = ['#', 'fault_audit', 'bas_label_accuracy', 'fault_precision', 'fault_recall', 'num_flagged', 'parsed'];
const THIRD = ['#', 'bas_consistent', 'wrong BAS: audit / arithmetic / both'];

type Group = Leaderboard['groups'][number];
type Row = ReturnType<typeof groupRows>[number];

const cols = (heads: string[]) => heads.map((h) => RESULT_COLUMNS.find((c) => c.head === h)!);
// Headings may break at their underscores, so a narrow number keeps a narrow column.
const head = (h: string) => h.replace(/_/g, '_\u200b');

/** The results table: the default first columns with "vs #1", or the columns `--columns` chose. */
function resultsTable(lb: Leaderboard, rows: Row[], columns: readonly LeaderboardColumn[] | null): string {
  if (columns !== null) {
    const chosen = chosenColumns(columns);
    const text = chosen.flatMap((c, i) => (c.align === 'left' ? [i] : []));
    return htmlTable(
      chosen.map((c) => head(c.head)),
      rows.map((r) => chosen.map((c) => stackedCell(c.value(r, lb)))),
      { textCols: text, wrapCols: text, lineBreaks: true },
    );
  }
  const first = cols(FIRST);
  return htmlTable(
    [...first.map((c) => head(c.head)), 'vs #1'],
    rows.map((r) => {
      const v = vsBestText(r, lb.by);
      return [...first.map((c) => stackedCell(c.value(r, lb))), v.diff ? `${v.diff}\n${v.verdict}` : v.verdict];
    }),
    { textCols: [2, 3, 9], wrapCols: [2, 9], lineBreaks: true },
  );
}

/** The metrics, pooled counts, tokens and cost. */
function metricsTable(lb: Leaderboard, rows: Row[]): string {
  const second = cols(SECOND);
  return htmlTable(
    [...second.map((c) => head(c.head)), 'pooled precision', 'pooled recall', 'tokens', 'cost'],
    rows.map((r) => [
      ...second.map((c) => stackedCell(c.value(r, lb))),
      fmt(r.faults_pooled.precision),
      fmt(r.faults_pooled.recall),
      atLeastCell(fmtInt(r.tokens.total), r.cost.lower_bound),
      atLeastCell(usd(r.cost.total_usd), r.cost.lower_bound),
    ]),
    { lineBreaks: true },
  );
}

/** Where a wrong BAS comes from: only for groups with a run that recorded it (since 0.4.1). */
function consistencyTable(lb: Leaderboard, rows: Row[]): string {
  if (!rows.some((r) => r.consistency.n)) return '';
  const third = cols(THIRD);
  const table = htmlTable(
    third.map((c) => head(c.head)),
    rows.map((r) => third.map((c) => stackedCell(c.value(r, lb)))),
    { lineBreaks: true },
  );
  return `<div style="margin-top:12px">${table}</div>`;
}

/** The ranking measure of each run as a bar with its 95% whiskers. */
function rankingChart(lb: Leaderboard, g: Group): string {
  if (!g.runs.length) return '';
  const bars = g.runs.map((r) => {
    const e = r.measures[lb.by];
    return {
      label: `#${rankText(r)} · ${r.name}`,
      value: e.mean,
      ci: e.ci95,
      note: e.mean === null ? 'no data' : fmtEstimate(e),
    };
  });
  return barChart(bars, { title: `${measureName(lb.by)} (95% intervals)` });
}

/** The runs not ranked, with why. */
function unrankedTable(g: Group): string {
  if (!g.unranked.length) return '';
  const table = htmlTable(
    ['run', 'folder', 'status', 'why'],
    g.unranked.map((r) => [r.name, r.dir, r.status ?? 'unknown', r.unrankable ?? '']),
    { textCols: [0, 1, 2, 3], wrapCols: [0, 1, 3] },
  );
  return `<h3>Not ranked</h3>${table}<p class="small">Runs that did not finish, or errored past their budget; <code>--include-incomplete</code> ranks them, marked *.</p>`;
}

/** The notes of a group: runs ranked only by --include-incomplete, and each run's own notes. */
function groupNotes(g: Group, rows: Row[]): string {
  return [
    ...g.runs
      .filter((r) => r.unrankable)
      .map((r) => `#${rankText(r)} ranked only by --include-incomplete: ${r.unrankable}`),
    ...rows.flatMap((r) => r.notes.map((n) => `${rankText(r)} ${r.name}: ${n}`)),
  ]
    .map((n) => `<p class="note">${escapeHtml(n)}</p>`)
    .join('');
}

/** One group of comparable runs: its tables, how each run was made, its chart and notes. */
function groupSection(lb: Leaderboard, g: Group, columns: readonly LeaderboardColumn[] | null): string {
  const rows = groupRows(g);
  const provenance = htmlTable(
    PROVENANCE_COLUMNS.map((c) => c.head),
    rows.map((r) => PROVENANCE_COLUMNS.map((c) => stackedCell(c.value(r, lb)))),
    { textCols: [1, 2, 3, 4, 5, 7], wrapCols: [1, 2, 3, 4, 5] },
  );
  return `<section class="board"><h2>${escapeHtml(g.title)}</h2>${resultsTable(lb, rows, columns)}<div style="margin-top:12px">${metricsTable(lb, rows)}</div>${consistencyTable(lb, rows)}${unrankedTable(g)}<h3>How each run was made</h3>${provenance}<div style="margin-top:14px">${rankingChart(lb, g)}</div>${groupNotes(g, rows)}</section>`;
}

/** The whole page for `bas leaderboard --html`; `extra` is trusted HTML put after the tables (the curves of sweep folders). */
export function leaderboardPage(
  lb: Leaderboard,
  extra = '',
  columns: readonly LeaderboardColumn[] | null = null,
): string {
  const title = 'bas leaderboard';
  const sections = lb.groups.map((g) => groupSection(lb, g, columns));
  const apart =
    lb.groups.length > 1
      ? `<p class="small">Runs on different tasks, task generators or prompts are ranked apart, never together.</p>`
      : '';
  const body = `${sections.join('')}<section><p class="small">Ranked by ${escapeHtml(measureText(lb.by))}, best first; only runs that finished within their error budget are ranked. Each cell is a mean over its 95% interval, in the same decimals (methods in docs/statistics.md). "vs #1" is the paired difference against the group's best on the tasks both ran, resampled by task ${fmtInt(lb.resamples)} times (seed ${lb.seed}); a verdict names a winner only when its interval excludes zero. Pooled precision and recall are over all claimed and true (row, code) pairs.</p>${apart}</section>`;
  const runs = lb.groups.reduce((a, g) => a + g.runs.length + g.unranked.length, 0);
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>groups <b>${lb.groups.length}</b></span><span>runs <b>${runs}</b></span><span>ranked by <b>${escapeHtml(lb.by)}</b></span></div>`;
  return page({ title, header, body: body + extra });
}

/** The page of `bas leaderboard --html`: the leaderboard, then the curves of the sweep folders among its inputs. */
export function leaderboardPageWithCurves(
  lb: Leaderboard,
  curves: SweepResult | null,
  columns: readonly LeaderboardColumn[] | null = null,
): string {
  const extra = curves ? `<section><h2>Difficulty curves</h2>${sweepFigures(curves)}</section>` : '';
  return leaderboardPage(lb, extra, columns);
}
