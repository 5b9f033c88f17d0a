/**
 * What the app reads: the answers of `bas view`'s JSON API (src/view/api.ts and the routes
 * beside it), which a page's embedded data and a bundle hold in the same shapes. Only the
 * fields the app uses are declared.
 */
import type { ListRow } from '../display/list.js';

interface Estimate {
  mean: number | null;
  ci95: [number, number] | null;
}

export interface RunsRow {
  id: string;
  sweep: string | null;
  model: string;
  endpoint: string | null;
  task: string;
  sampling: string;
  status: string;
  started_at: string | null;
  expected: number | null;
  recorded: number | null;
  figures: {
    reward: Estimate;
    errored: number;
    tokens: number;
    cost_usd: number | null;
    cost_at_least: boolean;
  } | null;
  problem: string | null;
}

interface SweepsRow {
  id: string;
  models: string[];
  points: number;
  status: string;
  complete: number;
  created_at: string | null;
  problem: string | null;
}

export interface RunsAnswer {
  root: string;
  runs: RunsRow[];
  sweeps: SweepsRow[];
  truncated?: boolean;
  unnamed?: string[];
}

interface IndexState {
  rollouts: number;
  expected: number | null;
  damaged_lines: number;
  damage: Array<{ line: number; reason: string }>;
  reading: { read: number; of: number } | null;
}

export interface RunAnswer {
  id: string;
  status: string;
  summary_pending: boolean;
  model: string;
  provenance: Array<[string, string]> | null;
  notes: string[];
  text: string | null;
  report: { summary: { reward: Estimate; counts: { errored: number } } } | null;
  problem: string | null;
  index: IndexState | null;
}

export interface ProgressAnswer {
  id: string;
  status: string;
  recorded: number | null;
  expected: number | null;
  figures: { reward: Estimate; errored: number } | null;
}

export interface RolloutsAnswer {
  total: number;
  /** Set by a bundle holding a selection of a large run's rollouts: how many the run has. */
  held_of?: number;
  matching: number;
  offset: number;
  rows: ListRow[];
  index: IndexState | null;
}

export interface CompareAnswer {
  a: string;
  b: string;
  text: string;
  paired_tasks: number;
  disagreements: Array<{ index: number; a: number; b: number; diff: number }>;
}

export interface SweepAnswer {
  id: string;
  models: string[];
  created_at: string | null;
  text: string | null;
  settings: Array<[string, string]>;
  points: Array<{
    run: string;
    point: string;
    model: string | null;
    status: string;
    recorded: number | null;
    expected: number | null;
    reward: Estimate | null;
    problem: string | null;
  }>;
}

/** One run of a leaderboard group, by its id under the folder. */
interface BoardRun {
  rank: string;
  id: string;
  name: string;
  why: string | null;
}

export interface LeaderboardAnswer {
  text: string | null;
  by: string;
  groups: Array<{ title: string; runs: BoardRun[]; unranked: BoardRun[] }>;
  left_out: string[];
}
