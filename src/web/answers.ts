/**
 * What the app reads: the answers of `bas view`'s JSON API (src/view/api.ts and the routes
 * beside it), which a page's embedded data and a bundle hold in the same shapes. Only the
 * fields the app uses are declared.
 */
import type { Section } from '../display/blocks.js';
import type { DiffTasks } from '../display/diff.js';
import type { ListRow } from '../display/list.js';
import type { BoardAnswer, ListEstimate as Estimate, RunRow, SweepPoint, SweepRow } from '../display/runs.js';

export interface RunsAnswer {
  root: string;
  runs: RunRow[];
  sweeps: SweepRow[];
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
  report: { run?: { task: DiffTasks | null }; summary: { reward: Estimate; counts: { errored: number } } } | null;
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
  /** What a sweep's page shows (its figures and table of points); the API gives none. */
  sections?: Section[];
  models: string[];
  created_at: string | null;
  text: string | null;
  settings: Array<[string, string]>;
  points: SweepPoint[];
}

/** What a leaderboard's page shows (its tables and figures) beside the answer; the API gives none. */
export type LeaderboardAnswer = BoardAnswer & { sections?: Section[] };

/** What a run's progress answer says, from its whole answer. */
export function progressOf(r: RunAnswer): ProgressAnswer {
  const s = r.report?.summary;
  return {
    id: r.id,
    status: r.status,
    recorded: r.index ? r.index.rollouts : null,
    expected: r.index ? r.index.expected : null,
    figures: s ? { reward: s.reward, errored: s.counts.errored } : null,
  };
}
