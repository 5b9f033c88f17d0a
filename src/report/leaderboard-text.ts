/**
 * The leaderboard as text for a terminal: per group, tables that each fit 80 columns at any
 * number of runs (names, folders and verdicts wrap; numbers never do), the runs left out of
 * the ranking with why, and notes wrapped to 80 columns too.
 */
import { terminalText } from '../io/terminal-text.js';
import { fitTable, wrapCell } from './fit-table.js';
import { columnsText } from './columns.js';
import { measureText, rankText, vsBestText, type Leaderboard, type LeaderboardRun } from './leaderboard.js';
import {
  chosenColumns,
  groupRows,
  RESULT_COLUMNS,
  stackedCell,
  versionsShort,
  type Column,
} from './leaderboard-table.js';
import type { LeaderboardColumn } from '../settings/choices.js';
import { dateText, durationText, samplingShort } from './provenance.js';
import { fmt, fmtInt } from './tables.js';
import { atLeastCell } from './cost.js';

const WIDTH = 80;

/** Text wrapped to 80 columns, continuation lines indented by `indent`. */
function wrapped(text: string, indent = 2): string {
  const lines = wrapCell(terminalText(text), WIDTH - indent).split('\n');
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(indent)}${l}`)).join('\n');
}

/** "$1.23", "$0.0042", or an en dash when the run recorded no prices. */
function usd(v: number | null): string {
  return v === null ? '–' : `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

function pick(heads: string[]): Column[] {
  return heads.map((h) => RESULT_COLUMNS.find((c) => c.head === h)!);
}

/** A table of `cols` over `runs`, its heads broken at spaces so narrow numbers keep narrow columns. */
function columnsTable(lb: Leaderboard, runs: LeaderboardRun[], cols: Column[], wrap: number[] = []): string {
  return columnsText(cols, runs, lb, wrap);
}

function groupText(lb: Leaderboard, g: Leaderboard['groups'][number], columns: Column[] | null): string[] {
  const out: string[] = [];
  const all = groupRows(g);
  const counted = g.unranked.length ? `, ${g.unranked.length} not ranked` : '';
  out.push(
    wrapped(
      `${g.title}: ${g.runs.length} run${g.runs.length === 1 ? '' : 's'} ranked${counted}, best first by ${measureText(lb.by)}; means over 95% intervals`,
    ),
  );
  if (columns !== null) {
    // The columns asked for, in one table (names and verdicts wrap to fit 80 columns).
    const wrap = columns.flatMap((c, i) => (c.id === 'run' || c.id === 'vs_best' ? [i] : []));
    out.push(columnsTable(lb, all, columns, wrap));
  } else pushDefaultTables(lb, g, out);
  pushNotes(lb, g, out);
  return out;
}

type Group = Leaderboard['groups'][number];
type Row = ReturnType<typeof groupRows>[number];

/** Who each run is: rank, tier, name and folder, date, size, completed and errored. */
function identityTable(lb: Leaderboard, all: Row[]): string {
  const first = pick(['#', 'tier', 'run', 'date', 'n × r', 'completed / errored']);
  return fitTable(
    ['#', 'tier', 'run\nfolder', 'date', 'n × r', 'completed /\nerrored'],
    all.map((r) => [
      rankText(r),
      stackedCell(first[1]!.value(r, lb)),
      `${r.name}\n${r.dir}`,
      ...first.slice(3).map((c) => stackedCell(c.value(r, lb))),
    ]),
    { align: first.map((c) => c.align), separators: true, wrap: [2] },
  );
}

/** Parsed share, pooled precision and recall, tokens and cost. */
function countsTable(all: Row[]): string {
  return fitTable(
    ['#', 'parsed', 'pooled\nprecision', 'pooled\nrecall', 'tokens', 'cost'],
    all.map((r) => [
      rankText(r),
      stackedCell({ est: r.measures.parsed, digits: 3 }),
      fmt(r.faults_pooled.precision),
      fmt(r.faults_pooled.recall),
      // A figure that may be incomplete (requests in flight at a stop, replies without usage) says so.
      atLeastCell(fmtInt(r.tokens.total), r.cost.lower_bound),
      atLeastCell(usd(r.cost.total_usd), r.cost.lower_bound),
    ]),
    { align: ['right', 'right', 'right', 'right', 'right', 'right'], separators: true },
  );
}

/** How each run was made: endpoint, sampling, versions, when and how long. */
function madeWithTable(all: Row[]): string {
  return fitTable(
    ['#', 'endpoint', 'sampling', 'versions', 'started\nwall time'],
    all.map((r) => {
      const p = r.provenance;
      return [
        rankText(r),
        p.endpoint ?? 'unknown',
        samplingShort(p.sampling),
        versionsShort(r).replace(', ', '\n'),
        `${dateText(p.started_at)}\n${durationText(p.wall_time_s)}`,
      ];
    }),
    { align: ['right', 'left', 'left', 'left', 'left'], separators: true, wrap: [1, 2, 3] },
  );
}

/** Each run paired against #1 on the tasks they share: its heading and table. */
function vsBestLines(lb: Leaderboard, g: Group): string[] {
  if (g.runs.length <= 1) return [];
  const measure = measureText(lb.by === 'reward_errors_as_zero' ? lb.by : 'reward');
  return [
    wrapped(
      `paired against #1 on shared tasks (${measure}, bootstrap, ${fmtInt(lb.resamples)} resamples, seed ${lb.seed})`,
    ),
    fitTable(
      ['#', 'shared\ntasks', 'diff (this − #1)\n95% interval', 'verdict'],
      g.runs.slice(1).map((r) => {
        const v = vsBestText(r, lb.by);
        return [rankText(r), fmtInt(r.vs_best?.shared_tasks ?? 0), v.diff, v.verdict];
      }),
      { align: ['right', 'right', 'right', 'left'], separators: true, wrap: [3] },
    ),
  ];
}

function pushDefaultTables(lb: Leaderboard, g: Group, out: string[]): void {
  const all = groupRows(g);
  out.push(identityTable(lb, all));
  out.push(columnsTable(lb, all, pick(['#', 'reward (errors as 0)', 'reward', 'bas_correct', 'fault_audit'])));
  out.push(columnsTable(lb, all, pick(['#', 'bas_label_accuracy', 'fault_precision', 'fault_recall', 'num_flagged'])));
  // Where a wrong BAS comes from, for groups with a run that recorded it (since 0.4.1).
  if (all.some((r) => r.consistency.n))
    out.push(columnsTable(lb, all, pick(['#', 'bas_consistent', 'wrong BAS: audit / arithmetic / both'])));
  out.push(countsTable(all), madeWithTable(all), ...vsBestLines(lb, g));
}

function pushNotes(lb: Leaderboard, g: Leaderboard['groups'][number], out: string[]): void {
  const all = groupRows(g);
  if (g.unranked.length) {
    out.push(
      'not ranked: unfinished or over its error budget (--include-incomplete ranks it)',
      fitTable(
        ['run', 'status', 'why'],
        g.unranked.map((r) => [`${r.name}\n${r.dir}`, r.status ?? 'unknown', r.unrankable ?? '']),
        { align: ['left', 'left', 'left'], separators: true, wrap: [0, 2] },
      ),
    );
  }
  const marked = g.runs.filter((r) => r.unrankable);
  for (const r of marked) out.push(wrapped(`* #${r.rank} is ranked only by --include-incomplete: ${r.unrankable}`));
  for (const r of all) for (const n of r.notes) out.push(wrapped(`note (${rankText(r)} ${r.name}): ${n}`));
  for (const r of all)
    if (r.tokens.unscored > 0)
      out.push(
        wrapped(
          `note: ${rankText(r)} ${r.name}'s ${fmtInt(r.tokens.total)} tokens include ${fmtInt(r.tokens.unscored)} that bought no score (errored rollouts)${r.cost.unscored_usd !== null ? `, ${usd(r.cost.unscored_usd)} of its ${usd(r.cost.total_usd)}` : ''}`,
        ),
      );
  for (const r of g.runs)
    if (r.vs_best?.left_out)
      out.push(
        wrapped(
          `note: ${r.vs_best.left_out} shared task(s) left out of #${r.rank} − #1 over completed rollouts: one run has no completed rollout on them`,
        ),
      );
}

/** The text `bas leaderboard` prints; `columns` (`--columns`) puts the results in one table of those. */
export function renderLeaderboard(lb: Leaderboard, columns: readonly LeaderboardColumn[] | null = null): string {
  const out: string[] = [];
  const chosen = columns === null ? null : chosenColumns(columns);
  for (const g of lb.groups) out.push(...groupText(lb, g, chosen), '');
  if (lb.groups.length > 1)
    out.push(
      wrapped(
        `${lb.groups.length} groups: runs on different tasks, task generators or prompts are ranked apart, never together.`,
      ),
    );
  out.push('pooled precision and recall are over all claimed and true (row, code) pairs.');
  // Names, folders and notes come from run folders: terminal-safe like the tables' cells.
  return terminalText(out.join('\n')) + '\n';
}
