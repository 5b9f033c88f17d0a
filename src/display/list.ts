/**
 * The rollout list of a run: its rows, its filters and their order, the same whether the rows
 * come from a page's embedded data (filtered here) or from `bas view`'s API (filtered by the
 * server; `apiParams` says how a filter is asked of it).
 */
import { FAULT_CODES } from '../task/types.js';
import type { RolloutDetail } from './drill.js';
import { markRollout } from './marks.js';

/** One row of the list (the shape /api/rollouts answers, with what a page adds). */
export interface ListRow {
  index: number;
  rollout: number;
  /** Null for an errored rollout. */
  reward: number | null;
  errored: boolean;
  bas_correct: boolean | null;
  consistent: boolean | null;
  /** Codes with a fault missed, and codes wrongly flagged. */
  missed: string[];
  wrong: string[];
  /** Whether the reply could not be parsed (never for an errored rollout). */
  unparseable: boolean;
  /** Set from a page's data: why the page holds this rollout. */
  why?: string[];
}

/** What the list shows: an outcome, a fault code missed or wrongly flagged, a reward range, a task. */
export const SHOW = ['all', 'error', 'completed', 'imperfect', 'bas-wrong', 'bas-right', 'unparseable'] as const;
export type Show = (typeof SHOW)[number];
export const SHOW_TEXT: Record<Show, string> = {
  all: 'all rollouts',
  error: 'errored',
  completed: 'not errored',
  imperfect: 'reward below 1',
  'bas-wrong': 'BAS wrong',
  'bas-right': 'BAS right',
  unparseable: 'unparseable',
};
export const SORTS = ['index', 'low', 'high'] as const;
export type Sort = (typeof SORTS)[number];
export const CONSISTENCY = ['', 'consistent', 'inconsistent', 'unknown'] as const;

export interface ListQuery {
  show: Show;
  missed: string;
  wrong: string;
  reward_min: string;
  reward_max: string;
  consistency: string;
  /** A task index, or '' for any. */
  task: string;
  sort: Sort;
  /** From 0. */
  page: number;
}

/** Rows a page of the list holds. */
export const PAGE_ROWS = 50;

export const EMPTY_QUERY: ListQuery = {
  show: 'all',
  missed: '',
  wrong: '',
  reward_min: '',
  reward_max: '',
  consistency: '',
  task: '',
  sort: 'index',
  page: 0,
};

function keepShown(q: ListQuery, r: ListRow): boolean {
  switch (q.show) {
    case 'error':
      return r.errored;
    case 'completed':
      return !r.errored;
    case 'imperfect':
      return !r.errored && r.reward !== 1;
    case 'bas-wrong':
      return !r.errored && r.bas_correct !== true;
    case 'bas-right':
      return !r.errored && r.bas_correct === true;
    case 'unparseable':
      return r.unparseable === true;
    default:
      return true;
  }
}

const num = (s: string): number | null => (s.trim() === '' || !Number.isFinite(Number(s)) ? null : Number(s));

/** Whether row `r` passes the filters of `q` (the order and the page aside). */
export function keepRow(q: ListQuery, r: ListRow): boolean {
  if (!keepShown(q, r)) return false;
  if (q.missed && !r.missed.includes(q.missed)) return false;
  if (q.wrong && !r.wrong.includes(q.wrong)) return false;
  const lo = num(q.reward_min);
  const hi = num(q.reward_max);
  if (
    (lo !== null || hi !== null) &&
    (r.reward === null || r.reward < (lo ?? -Infinity) || r.reward > (hi ?? Infinity))
  )
    return false;
  if (q.consistency) {
    const state = r.consistent === null ? 'unknown' : r.consistent ? 'consistent' : 'inconsistent';
    if (state !== q.consistency) return false;
  }
  return q.task.trim() === '' || String(r.index) === q.task.trim();
}

/** Rows in the order `sort` asks: by task, or by reward (errors last when lowest first), ties by task. */
export function sortRows(rows: ListRow[], sort: Sort): ListRow[] {
  const byTask = (a: ListRow, b: ListRow) => a.index - b.index || a.rollout - b.rollout;
  const reward = (r: ListRow) => r.reward ?? -1;
  if (sort === 'low') return rows.sort((a, b) => reward(a) - reward(b) || byTask(a, b));
  if (sort === 'high') return rows.sort((a, b) => reward(b) - reward(a) || byTask(a, b));
  return rows.sort(byTask);
}

/**
 * The query `q` as /api/rollouts parameters (offset and limit aside); null when the API cannot
 * ask it (a sort, one task: the page asks those another way). Rewards are
 * 0.6 · bas_correct + 0.4 · fault_audit, so BAS right is a reward of at least 0.6.
 */
export function apiParams(q: ListQuery): Record<string, string> | null {
  if (q.sort !== 'index' || q.task.trim() !== '') return null;
  const p: Record<string, string> = {};
  if (q.show === 'error') p.errored = '1';
  if (q.show === 'completed' || q.show === 'bas-wrong' || q.show === 'imperfect') p.errored = '0';
  if (q.show === 'bas-wrong') p.bas_wrong = '1';
  if (q.show === 'imperfect') p.reward_max = '0.999999';
  if (q.show === 'bas-right') p.reward_min = '0.6';
  if (q.show === 'unparseable') p.unparseable = '1';
  if (q.missed) p.missed = q.missed;
  if (q.wrong) p.wrong = q.wrong;
  if (q.reward_min) p.reward_min = q.reward_min;
  if (q.reward_max) p.reward_max = q.reward_max;
  if (q.consistency) p.consistency = q.consistency;
  return p;
}

/** `codes` in FAULT_CODES order, as a row built from a record or the index lists them (tests/report/list-rows.test.ts). */
const inCodeOrder = (codes: readonly string[] | undefined): string[] =>
  FAULT_CODES.filter((c) => codes?.includes(c) === true);

/**
 * The list row of one rollout, from its detail (a page's data, or one rollout the API
 * answered): the row report/list-rows.ts builds from its record and the rollout index from its
 * facts. A page's detail carries no consistency (display/drill.ts), so there it is unknown.
 */
export function listRowOf(d: RolloutDetail): ListRow {
  const marks = markRollout(d);
  const consistent = d.consistency?.bas_consistent;
  return {
    index: d.index,
    rollout: d.rollout,
    reward: d.reward,
    errored: d.error_type !== null,
    bas_correct: d.error_type !== null ? null : d.bas_correct === 1,
    consistent: consistent === 1 ? true : consistent === 0 ? false : null,
    missed: inCodeOrder(marks?.missed),
    wrong: inCodeOrder(marks?.wrong),
    unparseable: d.unparseable !== null,
    why: d.why,
  };
}
