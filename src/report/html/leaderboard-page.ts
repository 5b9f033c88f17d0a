/**
 * The HTML page of `bas leaderboard`: per group of comparable runs, the results table (the
 * columns of leaderboard-table.ts, in two tables so the page fits a 1280-pixel window), the
 * runs not ranked with why, how each run was made, and a bar chart of the ranking measure
 * with 95% whiskers. The page is data (display/blocks.ts) the app draws: every name and
 * folder is text, and long ones wrap at their separators, never mid-word.
 */
import { measureName, measureText, rankText, vsBestText, type Leaderboard } from '../leaderboard.js';
import { chosenColumns, groupRows, PROVENANCE_COLUMNS, RESULT_COLUMNS, stackedCell } from '../leaderboard-table.js';
import type { LeaderboardColumn } from '../../settings/choices.js';
import { fmt, fmtEstimate, fmtInt } from '../tables.js';
import type { Block, Section, TableBlock } from '../../display/blocks.js';
import { escapeHtml, jsonForScript } from './escape.js';
import { appScript } from './app-script.js';
import { Figures, safeCells } from './blocks.js';
import { page } from './page.js';
import { barChart } from './svg.js';
import { sweepFigures } from './sweep-page.js';
import { leaderboardAnswerOf } from '../leaderboard-answer.js';
import { renderLeaderboard } from '../leaderboard-text.js';
import type { PageData } from '../../display/page-data.js';
import type { SweepResult } from '../sweep.js';
import { atLeastCell } from '../cost.js';
import { usd } from '../../display/format.js';

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
function resultsTable(lb: Leaderboard, rows: Row[], columns: readonly LeaderboardColumn[] | null): TableBlock {
  if (columns !== null) {
    const chosen = chosenColumns(columns);
    const text = chosen.flatMap((c, i) => (c.align === 'left' ? [i] : []));
    return {
      head: chosen.map((c) => head(c.head)),
      rows: rows.map((r) => chosen.map((c) => stackedCell(c.value(r, lb)))),
      text,
      wrap: text,
      lines: true,
    };
  }
  const first = cols(FIRST);
  return {
    head: [...first.map((c) => head(c.head)), 'vs #1'],
    rows: rows.map((r) => {
      const v = vsBestText(r, lb.by);
      return [...first.map((c) => stackedCell(c.value(r, lb))), v.diff ? `${v.diff}\n${v.verdict}` : v.verdict];
    }),
    text: [2, 3, 9],
    wrap: [2, 9],
    lines: true,
  };
}

/** The metrics, pooled counts, tokens and cost. */
function metricsTable(lb: Leaderboard, rows: Row[]): TableBlock {
  const second = cols(SECOND);
  return {
    head: [...second.map((c) => head(c.head)), 'pooled precision', 'pooled recall', 'tokens', 'cost'],
    rows: rows.map((r) => [
      ...second.map((c) => stackedCell(c.value(r, lb))),
      fmt(r.faults_pooled.precision),
      fmt(r.faults_pooled.recall),
      atLeastCell(fmtInt(r.tokens.total), r.cost.lower_bound),
      atLeastCell(usd(r.cost.total_usd), r.cost.lower_bound),
    ]),
    lines: true,
  };
}

/** Where a wrong BAS comes from: only for groups with a run that recorded it (since 0.4.1). */
function consistencyTable(lb: Leaderboard, rows: Row[]): Block[] {
  if (!rows.some((r) => r.consistency.n)) return [];
  const third = cols(THIRD);
  const table = {
    head: third.map((c) => head(c.head)),
    rows: rows.map((r) => third.map((c) => stackedCell(c.value(r, lb)))),
    lines: true,
  };
  return [{ table }];
}

/** The ranking measure of each run as a bar with its 95% whiskers. */
function rankingChart(lb: Leaderboard, g: Group, figures: Figures | null): Block[] {
  if (!g.runs.length || figures === null) return [];
  const bars = g.runs.map((r) => {
    const e = r.measures[lb.by];
    return {
      label: `#${rankText(r)} · ${r.name}`,
      value: e.mean,
      ci: e.ci95,
      note: e.mean === null ? 'no data' : fmtEstimate(e),
    };
  });
  return [figures.add(barChart(bars, { title: `${measureName(lb.by)} (95% intervals)` }))];
}

/** The runs not ranked, with why. */
function unrankedTable(g: Group): Block[] {
  if (!g.unranked.length) return [];
  const table = {
    head: ['run', 'folder', 'status', 'why'],
    rows: g.unranked.map((r) => [r.name, r.dir, r.status ?? 'unknown', r.unrankable ?? '']),
    text: [0, 1, 2, 3],
    wrap: [0, 1, 3],
  };
  const why = 'Runs that did not finish, or errored past their budget; --include-incomplete ranks them, marked *.';
  return [{ h3: 'Not ranked' }, { table }, { small: why }];
}

/** The notes of a group: runs ranked only by --include-incomplete, and each run's own notes. */
function groupNotes(g: Group, rows: Row[]): Block[] {
  return [
    ...g.runs
      .filter((r) => r.unrankable)
      .map((r) => `#${rankText(r)} ranked only by --include-incomplete: ${r.unrankable}`),
    ...rows.flatMap((r) => r.notes.map((n) => `${rankText(r)} ${r.name}: ${n}`)),
  ].map((note) => ({ note }));
}

/** One group of comparable runs: its tables, how each run was made, its chart and notes. */
function groupSection(
  lb: Leaderboard,
  g: Group,
  columns: readonly LeaderboardColumn[] | null,
  figures: Figures | null,
): Section {
  const rows = groupRows(g);
  const provenance: TableBlock = {
    head: PROVENANCE_COLUMNS.map((c) => c.head),
    rows: rows.map((r) => PROVENANCE_COLUMNS.map((c) => stackedCell(c.value(r, lb)))),
    text: [1, 2, 3, 4, 5, 7],
    wrap: [1, 2, 3, 4, 5],
  };
  return [
    { h2: g.title },
    { table: resultsTable(lb, rows, columns) },
    { table: metricsTable(lb, rows) },
    ...consistencyTable(lb, rows),
    ...unrankedTable(g),
    { h3: 'How each run was made' },
    { table: provenance },
    ...rankingChart(lb, g, figures),
    ...groupNotes(g, rows),
  ];
}

/**
 * What the page of `bas leaderboard --html` shows: a card per group, the note on the method,
 * then the curves of the sweep folders among its inputs; its figures go to `figures` (none
 * are drawn when it is null).
 */
export function leaderboardSections(
  lb: Leaderboard,
  curves: SweepResult | null,
  columns: readonly LeaderboardColumn[] | null,
  figures: Figures | null,
): Section[] {
  const sections = lb.groups.map((g) => groupSection(lb, g, columns, figures));
  const method: Block[] = [
    {
      small: `Ranked by ${measureText(lb.by)}, best first; only runs that finished within their error budget are ranked. Each cell is a mean over its 95% interval, in the same decimals (methods in docs/statistics.md). "vs #1" is the paired difference against the group's best on the tasks both ran, resampled by task ${fmtInt(lb.resamples)} times (seed ${lb.seed}); a verdict names a winner only when its interval excludes zero. Pooled precision and recall are over all claimed and true (row, code) pairs.`,
    },
  ];
  if (lb.groups.length > 1)
    method.push({ small: 'Runs on different tasks, task generators or prompts are ranked apart, never together.' });
  sections.push(method);
  if (curves) sections.push([{ h2: 'Difficulty curves' }, ...sweepFigures(curves, figures)]);
  return safeCells(sections);
}

/**
 * The page of `bas leaderboard --html`, drawn by the app (src/web) from its data: the answer
 * `bas view` gives at /api/leaderboard with the page's sections, its figures as templates.
 */
export function leaderboardPage(
  lb: Leaderboard,
  curves: SweepResult | null = null,
  columns: readonly LeaderboardColumn[] | null = null,
): string {
  const title = 'bas leaderboard';
  const figures = new Figures();
  const sections = leaderboardSections(lb, curves, columns, figures);
  const data: PageData = {
    kind: 'leaderboard',
    start: '#/leaderboard',
    runs: {},
    leaderboard: { ...leaderboardAnswerOf(lb, renderLeaderboard(lb, columns), []), sections },
  };
  const runs = lb.groups.reduce((a, g) => a + g.runs.length + g.unranked.length, 0);
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>groups <b>${lb.groups.length}</b></span><span>runs <b>${runs}</b></span><span>ranked by <b>${escapeHtml(lb.by)}</b></span></div>`;
  const body = `<div id="app"></div>\n${figures.templates()}`;
  return page({ title, header, body, data: jsonForScript(data), script: appScript() });
}
