/**
 * The run list's rows, as `bas view`'s /api/runs answers them (src/view/run-row.ts makes them)
 * and the app reads them (src/web), a sweep's points and a leaderboard: one declaration for
 * both ends.
 */

/** An estimate as the list shows it: the mean and its 95% interval. */
export interface ListEstimate {
  mean: number | null;
  ci95: [number, number] | null;
}

/** The figures a run shows in the list. */
export interface ListFigures {
  rollouts: number;
  completed: number;
  errored: number;
  reward: ListEstimate;
  tokens: number;
  cost_usd: number | null;
  /** True when tokens and cost may be incomplete (requests in flight at a stop, replies without usage): shown as "at least". */
  cost_at_least: boolean;
}

/** One row of the run list. */
export interface RunRow {
  id: string;
  kind: 'run';
  /** The sweep folder holding it, if any. */
  sweep: string | null;
  model: string;
  endpoint: string | null;
  task: string;
  sampling: string;
  status: string;
  started_at: string | null;
  expected: number | null;
  /** Rollouts recorded, from the index when it is built (live), else from the summary. */
  recorded: number | null;
  figures: ListFigures | null;
  /** Why a figure is missing or the folder cannot be read whole. */
  problem: string | null;
}

/** One sweep of the run list. */
export interface SweepRow {
  id: string;
  kind: 'sweep';
  models: string[];
  points: number;
  /** Of its points: `running` while one runs, `complete` when all are, `damaged` when one is, else `incomplete`. */
  status: string;
  /** Points whose run is complete. */
  complete: number;
  created_at: string | null;
  problem: string | null;
}

/**
 * One point of a sweep, as /api/sweep answers it (src/view/sweep-view.ts makes them), a
 * sweep's page embeds it (src/report/html/sweep-page.ts) and the app lists it.
 */
export interface SweepPoint {
  run: string;
  /** The point as `bas sweep` names it (rows, and the fault rate or the budget when the grid has one). */
  point: string;
  model: string | null;
  num_transactions: number;
  fault_rate: number | null;
  /** The run's status; `not started` when its folder is not there yet. */
  status: string;
  recorded: number | null;
  expected: number | null;
  reward: ListEstimate | null;
  problem: string | null;
}

/** One run of a leaderboard group, by its id under the folder. */
export interface BoardRun {
  rank: string;
  id: string;
  name: string;
  why: string | null;
}

/**
 * The leaderboard as /api/leaderboard answers it and a leaderboard's page embeds it
 * (src/report/leaderboard-answer.ts makes both), as the app reads it.
 */
export interface BoardAnswer {
  text: string | null;
  by: string;
  groups: Array<{ title: string; runs: BoardRun[]; unranked: BoardRun[] }>;
  left_out: string[];
}
