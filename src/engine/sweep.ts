/**
 * A sweep as a library call: `runSweepPlan(sweep, { signal, onEvent })` runs one eval per point of
 * a planned grid (each through `runPlan`, in its own run folder), one after the other, and
 * says how it ended. Like runPlan it prints nothing and installs no handler: the points' own
 * events come out wrapped with the point they belong to, and `bas sweep` renders them.
 *
 * What a point runs is decided before the first one starts (`planPoint`, pure): a new point's
 * plan is its model's plan with the point's rows, fault rate and folder; a point already begun
 * resumes with the plan its run.json gives.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_FILE } from '../runfile/files.js';
import { cutOffRun, heldRun } from '../runfile/results.js';
import { removeSweepPlan, type SweepPlan, type SweepPlanPoint } from '../runfile/sweep-file.js';
import { planOf } from '../settings/plan.js';
import type { EvalEvent, EvalResult } from './events.js';
import { runPlan, type RunPlan } from './run-eval.js';
import { readForResume, stillCurrent, type ResumeRead } from './resume-read.js';

/** One run of the grid: where it stands in sweep.json, its model, its folder and its plan. */
export interface PlannedPoint {
  spec: SweepPlanPoint;
  model: string;
  dir: string;
  /** True when its folder held a run already: the plan resumes it. */
  resumed: boolean;
  plan: RunPlan;
  /** A resumed point's folder as the sweep's plan read it (api/sweep-plan.ts), handed on to its run. */
  read?: ResumeRead;
}

/** Everything a sweep runs: its folder, its sweep.json, and each point's plan in order. */
export interface SweepRun {
  dir: string;
  file: SweepPlan;
  /** A sweep begun by this call (sweep.json just written), not a resume. */
  fresh: boolean;
  points: PlannedPoint[];
}

/**
 * A new point's plan: its model's plan (resolved once per model, from the sweep's flags and
 * config) with the point's rows, fault rate (null: the model plan's), budget (a budget sweep's
 * reasoning effort or token limit) and folder.
 */
export function planPoint(base: RunPlan, spec: SweepPlanPoint, dir: string): PlannedPoint {
  const s = base.settings;
  const settings = {
    ...s,
    numTransactions: spec.num_transactions,
    faultRate: spec.fault_rate ?? s.faultRate,
    // A budget sweep's point sends its own budget.
    ...(spec.reasoning_effort === undefined ? {} : { reasoningEffort: spec.reasoning_effort }),
    ...(spec.max_tokens === undefined ? {} : { maxTokens: spec.max_tokens }),
    output: dir,
  };
  return { spec, model: base.model, dir, resumed: false, plan: planOf(settings) };
}

/** What `onEvent` hears: a point starting, each event of its run, and how it ended. */
export type PointEvent =
  | { type: 'point-started'; index: number; point: PlannedPoint }
  | { type: 'point-event'; index: number; point: PlannedPoint; event: EvalEvent }
  /** `cut_off`: the first-contact rule stopped it, every reply cut off by the token limit: recorded as 0. */
  | { type: 'point-ended'; index: number; point: PlannedPoint; result: EvalResult; cut_off: boolean }
  /** A point recorded as cut off by an earlier session: not run again. */
  | { type: 'point-kept'; index: number; point: PlannedPoint }
  /** Its run rejected: the sweep ends `failed` with the error. */
  | { type: 'point-failed'; index: number; point: PlannedPoint };

/**
 * How a sweep ended. `done`: every point ran (`failed` lists those over their error budget,
 * with nothing completed, whose rollouts a resume runs again, or stopped at their spending
 * budget; `cut_off` those whose every reply was cut off by the token limit, recorded as a
 * score of 0 and never run again: a real point of a budget's curve). `stopped`: a point was
 * interrupted or stopped by its endpoint; `failed`: a point's run rejected with `error` (a bad
 * folder, a refused key before any request). The points after either did not run.
 * `withdrawn`: nothing of a new sweep was scored, so sweep.json was taken back and the same
 * command may start it again in the same folder.
 */
export type SweepOutcome =
  | { kind: 'done'; failed: Array<{ index: number; result: EvalResult }>; cut_off: number[] }
  | { kind: 'stopped'; index: number; result: EvalResult; withdrawn: boolean }
  | { kind: 'failed'; index: number; error: unknown; withdrawn: boolean };

export interface SweepPlanOptions {
  signal?: AbortSignal;
  onEvent?: (event: PointEvent) => void;
  /** Called before a point's run takes its folder, once there is work to do (`bas sweep --check`). */
  preflight?: (point: PlannedPoint) => Promise<void>;
  env?: NodeJS.ProcessEnv;
}

/**
 * Whether a fresh sweep's first point left nothing scored: then sweep.json is taken back, and
 * the point's folder is one eval starts again, so the same sweep, corrected, can use the folder.
 */
async function withdrawn(sweep: SweepRun, index: number): Promise<boolean> {
  if (!sweep.fresh || index !== 0) return false;
  const sub = sweep.points[0]!.dir;
  if (existsSync(join(sub, RUN_FILE)) && (await heldRun(sub)) !== 'failed-start') return false;
  removeSweepPlan(sweep.dir);
  return true;
}

/**
 * A resumed point's folder read before its run, which takes the read (run-eval.ts): the plan's
 * read while the file is as it was, or one made here when only the records can say whether the
 * point was cut off (run.json says `failed`). Any other point's run reads its own folder, under
 * its lock. Anything unreadable is left for the run to report.
 */
async function readBefore(point: PlannedPoint): Promise<ResumeRead | undefined> {
  if (!point.resumed) return undefined;
  if (point.read !== undefined && stillCurrent(point.read, point.dir)) return point.read;
  if (point.plan.resume?.run.status !== 'failed') return undefined;
  return readForResume(point.plan).catch(() => undefined);
}

/** Runs every point of `sweep` in order, and resolves with how it ended. */
export async function runSweepPlan(sweep: SweepRun, options: SweepPlanOptions = {}): Promise<SweepOutcome> {
  const emit = options.onEvent ?? (() => {});
  const failed: Array<{ index: number; result: EvalResult }> = [];
  const cutOff: number[] = [];
  for (const [index, point] of sweep.points.entries()) {
    emit({ type: 'point-started', index, point });
    const read = await readBefore(point);
    // Handed on: the point no longer holds its run's fold for the rest of the sweep.
    point.read = undefined;
    // A point recorded as cut off is final: a resume would spend three more requests to learn it again.
    if (read?.cutOff) {
      emit({ type: 'point-kept', index, point });
      cutOff.push(index);
      continue;
    }
    let result: EvalResult;
    try {
      const preflight = options.preflight;
      result = await runPlan(point.plan, {
        signal: options.signal,
        env: options.env,
        onEvent: (event) => emit({ type: 'point-event', index, point, event }),
        preflight: preflight ? () => preflight(point) : undefined,
        read,
      });
    } catch (err) {
      emit({ type: 'point-failed', index, point });
      return { kind: 'failed', index, error: err, withdrawn: await withdrawn(sweep, index) };
    }
    const kind = result.outcome.kind;
    const cut = kind === 'endpoint-stopped' && (await cutOffRun(point.dir));
    emit({ type: 'point-ended', index, point, result, cut_off: cut });
    if (cut) {
      cutOff.push(index);
      continue;
    }
    // A run stopped at its own budget (each run of a sweep has the whole --max-cost): the
    // others still run, and the sweep says so at its end.
    if (kind === 'over-error-budget' || kind === 'nothing-completed' || kind === 'budget')
      failed.push({ index, result });
    else if (kind === 'interrupted' || kind === 'endpoint-stopped') {
      // A fresh sweep whose first point was refused before scoring anything may start again.
      const back = kind === 'endpoint-stopped' && result.outcome.restartable && (await withdrawn(sweep, index));
      return { kind: 'stopped', index, result, withdrawn: back };
    }
  }
  return { kind: 'done', failed, cut_off: cutOff };
}
