/**
 * The leaderboard's columns, declared once for every format (text, Markdown, HTML, CSV,
 * LaTeX). The results table mirrors the original environment's: run, date, n,
 * completed/errored, `bas_correct`, `fault_audit`, reward, then the metrics; the provenance
 * table says how each run was made. A cell is text, or an estimate each format writes its own
 * way (stacked in a terminal and on the page, inline in Markdown and LaTeX), always with the
 * mean and its interval in the same number of decimals.
 */
import type { Estimate } from '../summary/stats.js';
import type { Leaderboard, LeaderboardRun } from './leaderboard.js';
import { rankText, vsBestText } from './leaderboard.js';
import { dateText, durationText, samplingText } from './provenance.js';
import { fmtInt } from './tables.js';
import type { LeaderboardColumn } from '../settings/choices.js';
import { pickColumns, type Column as AnyColumn } from './columns.js';

export { inlineCell, stackedCell, type Cell } from './columns.js';

export type Column = AnyColumn<LeaderboardRun, Leaderboard, LeaderboardColumn>;

const est =
  (pick: (r: LeaderboardRun) => Estimate, digits = 3) =>
  (r: LeaderboardRun) => ({
    est: pick(r),
    digits,
  });

/** "20 × 1": tasks × rollouts per task, as planned where run.json says, else as recorded. */
function sizeText(r: LeaderboardRun): string {
  const n = r.provenance.n ?? r.tasks;
  const k = r.provenance.rollouts ?? (r.tasks ? Math.round(r.rollouts / r.tasks) : 0);
  return `${fmtInt(n)} × ${k}`;
}

export const RESULT_COLUMNS: Column[] = [
  { id: 'rank', head: '#', align: 'right', value: rankText },
  { id: 'tier', head: 'tier', align: 'right', value: (r) => (r.tier === null ? '–' : String(r.tier)) },
  { id: 'run', head: 'run', align: 'left', value: (r) => r.name },
  { id: 'date', head: 'date', align: 'left', value: (r) => dateText(r.provenance.started_at) },
  { id: 'size', head: 'n × r', align: 'right', value: sizeText },
  {
    id: 'completed',
    head: 'completed / errored',
    align: 'right',
    value: (r) => `${fmtInt(r.completed)} / ${fmtInt(r.errored)}`,
  },
  { id: 'bas_correct', head: 'bas_correct', align: 'right', value: est((r) => r.measures.bas_correct) },
  { id: 'fault_audit', head: 'fault_audit', align: 'right', value: est((r) => r.measures.fault_audit) },
  { id: 'reward', head: 'reward', align: 'right', value: est((r) => r.measures.reward) },
  {
    id: 'reward_errors_as_zero',
    head: 'reward (errors as 0)',
    align: 'right',
    value: est((r) => r.measures.reward_errors_as_zero),
  },
  {
    id: 'bas_label_accuracy',
    head: 'bas_label_accuracy',
    align: 'right',
    value: est((r) => r.measures.bas_label_accuracy),
  },
  { id: 'fault_precision', head: 'fault_precision', align: 'right', value: est((r) => r.measures.fault_precision) },
  { id: 'fault_recall', head: 'fault_recall', align: 'right', value: est((r) => r.measures.fault_recall) },
  { id: 'num_flagged', head: 'num_flagged', align: 'right', value: est((r) => r.measures.num_flagged, 2) },
  { id: 'parsed', head: 'parsed', align: 'right', value: est((r) => r.measures.parsed) },
  { id: 'bas_consistent', head: 'bas_consistent', align: 'right', value: est((r) => r.consistency.bas_consistent) },
  { id: 'causes', head: 'wrong BAS: audit / arithmetic / both', align: 'right', value: (r) => causesText(r) },
  {
    id: 'vs_best',
    head: 'vs #1',
    align: 'left',
    value: (r, lb) => {
      const v = vsBestText(r, lb.by);
      return v.diff ? `${v.diff} ${v.verdict}` : v.verdict;
    },
  },
];

export const PROVENANCE_COLUMNS: Column[] = [
  { head: '#', align: 'right', value: rankText },
  { head: 'run', align: 'left', value: (r) => r.name },
  { head: 'folder', align: 'left', value: (r) => r.dir },
  {
    head: 'endpoint',
    align: 'left',
    value: ({ provenance: p }) =>
      p.endpoint === 'built-in' ? 'built-in' : `${p.endpoint ?? 'unknown'} (provider ${p.provider ?? 'unknown'})`,
  },
  { head: 'sampling', align: 'left', value: (r) => samplingText(r.provenance.sampling) },
  { head: 'versions', align: 'left', value: (r) => versionsShort(r) },
  { head: 'wall time', align: 'right', value: (r) => durationText(r.provenance.wall_time_s) },
  { head: 'status', align: 'left', value: (r) => r.status ?? 'unknown' },
];

/** "12 / 3 / 1": wrong BAS by cause, or an en dash for a run that recorded no split (before 0.4.1). */
function causesText(r: LeaderboardRun): string {
  const c = r.consistency;
  if (!c.n) return '–';
  const e = c.bas_errors;
  return `${fmtInt(e.audit)} / ${fmtInt(e.arithmetic)} / ${fmtInt(e.both)}`;
}

/** "bas 0.3.0, gen 3, prompt 2" or "bas unknown, tasks from a file". */
export function versionsShort(r: LeaderboardRun): string {
  const p = r.provenance;
  const gen = p.generator === null ? 'tasks from a file' : `gen ${p.generator}, prompt ${p.prompt_version ?? '?'}`;
  return `bas ${p.bas_version ?? 'unknown'}, ${gen}`;
}

/** Every run of a group in display order: the ranking, then the runs listed below it. */
export function groupRows(g: { runs: LeaderboardRun[]; unranked: LeaderboardRun[] }): LeaderboardRun[] {
  return [...g.runs, ...g.unranked];
}

/** The results columns `--columns` names, in its order. */
export function chosenColumns(ids: readonly LeaderboardColumn[]): Column[] {
  return pickColumns(RESULT_COLUMNS, ids);
}
