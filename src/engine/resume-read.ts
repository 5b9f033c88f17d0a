/**
 * What a run sets out to do (its scope), and a resume's one read of its folder. A resume reads
 * results.jsonl once: the read says how many rollouts are left, folds the records the run goes
 * on from, and counts the lines for the cut-off rule (results.ts `cutOffRun`). A caller that must
 * know before the run whether it has work left (a sweep's plan asks it of every point, to know
 * whether the endpoint must be confirmed) makes the read itself and hands it to the run
 * (`RunPlanOptions.read`), which takes it once it holds the folder, if the file is still as it
 * was read (`resultsStamp`); else it reads again. The stamp covers results.jsonl only: run.json's
 * status (what the cut-off rule reads of it) is the one the plan read, as every other setting the
 * plan took from run.json is.
 */
import { resultsStamp } from '../runfile/files.js';
import type { RunInfo } from '../runfile/run-info.js';
import type { RunBounds } from '../runfile/winners.js';
import type { EvalPlan } from '../settings/plan.js';
import { shardSize, type Shard } from '../settings/shard.js';
import type { Summary } from '../summary/summary.js';
import { countInPlan, readRecorded, type Recorded } from './session.js';
import { RunRule } from './sequential.js';

/** A run's plan (run-eval.ts `RunPlan`, named here as its parts: run-eval.ts imports this file). */
type RunPlan = EvalPlan<RunInfo>;

/** What a run sets out to do: its tasks, the rollouts they make, and the bounds of its records. */
export interface Scope {
  n: number;
  rollouts: number;
  shard: Shard | null;
  total: number;
  /** Records outside the run (a task past n, another shard's) are set aside wherever read. */
  bounds: RunBounds;
}

export function scopeOf(plan: RunPlan): Scope {
  const { n, rollouts, shard } = plan.tasks;
  return { n, rollouts, shard, total: shardSize(n, shard) * rollouts, bounds: { n, rollouts, shard, indices: null } };
}

/** A resume's read of its folder's records. */
export interface ResumeRead {
  /** results.jsonl as it was when the read began (`resultsStamp`; null: there was none). */
  stamp: string | null;
  /** Rollouts of the run not yet finished (0: its resume runs nothing). */
  left: number;
  /** True when the run is one the first-contact rule stopped with every reply cut off (`cutOffRun`). */
  cutOff: boolean;
  /** The read's warnings (a torn last line, records set aside), for the resume to pass on. */
  warnings: string[];
  /**
   * What the resume goes on from: the records, while rollouts are left; a finished run's
   * summary alone (all its resume asks, and a sweep holds it until the point's turn).
   */
  held: { recorded: Recorded } | { summary: Summary };
}

/**
 * Reads a resumed run's folder (run.json as the plan holds it): once, whether under the run's
 * lock or before it. A stopping rule starts from the rewards already recorded: they are kept
 * in the same pass.
 */
export async function readForResume(plan: RunPlan): Promise<ResumeRead> {
  const dir = plan.resume!.dir;
  const scope = scopeOf(plan);
  const stamp = resultsStamp(dir);
  const warnings: string[] = [];
  const recorded = await readRecorded(dir, (m) => warnings.push(m), scope.bounds, {
    rewards: RunRule.applies(plan.limits),
  });
  const left = scope.total - countInPlan(recorded.finished, scope.n, scope.rollouts, scope.shard);
  const cutOff = recorded.lines.cutOff(plan.resume!.run.status);
  return { stamp, left, cutOff, warnings, held: left === 0 ? { summary: recorded.summary() } : { recorded } };
}

/** Whether `read` is still the folder's: its results file unchanged since (a resume asks it holding the lock). */
export function stillCurrent(read: ResumeRead, dir: string): boolean {
  return read.stamp === resultsStamp(dir);
}
