/**
 * The JSON a page carries for the app (in `<script type="application/json" id="bas-data">`):
 * a run's page or a bundle. Each part holds what `bas view`'s API would answer
 * (answers from the server side are opaque here: the app reads them as the API's), so the app
 * reads a page as it reads the viewer.
 */
import type { DiffAnswer } from './diff.js';
import type { DrillData } from './drill.js';

/** One run a page holds: its rollouts (all, or a page's bounded selection) and, in a bundle, its /api/run answer. */
interface EmbeddedRun {
  drill: DrillData;
  run?: unknown;
}

export interface PageData {
  /** `run`: a run's report page; `bundle`: runs to share, the viewer without a server. */
  kind: 'run' | 'bundle';
  /** The address opened when the page's has none (`#/run/DIR`). */
  start: string;
  runs: Record<string, EmbeddedRun>;
  /** A bundle's tasks and their interned text, held once for all its runs (each run's own are then empty). */
  pool?: { tasks: DrillData['tasks']; strings: string[] };
  /** The /api/runs answer (a bundle). */
  list?: unknown;
  /**
   * Per pair of runs (key `compareKey(a, b)`): /api/compare's answer and the diff, when the
   * page holds them (a bundle holds every rollout, so the app computes a diff it lacks).
   */
  compares?: Record<string, { compare?: unknown; diff?: DiffAnswer }>;
  /** The /api/leaderboard answer (a bundle). */
  leaderboard?: unknown;
  /** Per sweep id: /api/sweep's answer (a bundle). */
  sweeps?: Record<string, unknown>;
}

/** The key of a comparison of runs `a` and `b` in `PageData.compares`. */
export const compareKey = (a: string, b: string): string => `${a}\n${b}`;
