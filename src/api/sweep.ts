/**
 * A sweep from a program: `runSweep(config, options)` plans it (sweep-plan.ts, as `bas sweep`
 * plans its flags), writes a new sweep's sweep.json, runs its points (`runSweepPlan`,
 * src/engine) and reads its curves back.
 */
import { ConfigError } from '../errors/index.js';
import type { EvalEvent, EvalResult } from '../engine/events.js';
import { runSweepPlan, type PlannedPoint, type PointEvent } from '../engine/sweep.js';
import type { SweepView } from '../report/views.js';
import { writeSweepPlan } from '../runfile/sweep-file.js';
import { checkOutputs } from '../settings/output-paths.js';
import { sweepFlagsOf, type SweepConfig } from '../settings/sweep-config.js';
import { readSweep } from './reports.js';
import { planSweep, type SweepFlags } from './sweep-plan.js';

/** A point of a sweep: its model, its folder and its place on the grid (rows, fault rate, budget). */
export interface SweepPointInfo {
  model: string;
  dir: string;
  /** True when its folder held a run already, which it continues. */
  resumed: boolean;
  num_transactions: number;
  /** Null: the model's settings' fault rate. */
  fault_rate: number | null;
  reasoning_effort?: string;
  max_tokens?: number;
}

/** What `runSweep`'s `onEvent` hears: a point starting, each event of its run (as `runEval`'s), and how it ended. */
export type SweepEvent =
  | { type: 'point-started'; index: number; point: SweepPointInfo }
  | { type: 'point-event'; index: number; point: SweepPointInfo; event: EvalEvent }
  /** `cut_off`: every reply was cut off by the token limit; the point is recorded as 0. */
  | { type: 'point-ended'; index: number; point: SweepPointInfo; result: EvalResult; cut_off: boolean }
  /** A point an earlier session recorded as cut off (every reply cut by the token limit): not run again. */
  | { type: 'point-kept'; index: number; point: SweepPointInfo }
  | { type: 'point-failed'; index: number; point: SweepPointInfo };

/** How `runSweep` runs: whether it continues a sweep, how to stop it and who hears its events. */
export interface RunSweepOptions {
  /** The folder of a sweep to continue, with its saved models, points and settings (`config` must then be `{}`). */
  resume?: string;
  /** Aborting it stops the running point; the points after it do not run. */
  signal?: AbortSignal;
  /** Called with every event, synchronously; it must not throw. */
  onEvent?: (event: SweepEvent) => void;
}

/** How a sweep went and, once every point ran, its curves. */
export interface SweepRunResult {
  dir: string;
  /**
   * `done`: every point ran (`failed`: the indices of those over their error budget, with
   * nothing completed or stopped at their budget; a resume runs them again; `cut_off`: those whose
   * every reply was cut off by the token limit, recorded as 0 and never run again). `stopped`: point
   * `index` was interrupted or stopped by its endpoint, and the points after it did not run.
   */
  outcome:
    { kind: 'done'; failed: number[]; cut_off: number[] } | { kind: 'stopped'; index: number; result: EvalResult };
  /** The curves (as `readSweep` gives them), null unless `done`. */
  sweep: (SweepView & { warnings: string[] }) | null;
}

function pointInfo(p: PlannedPoint): SweepPointInfo {
  const { folder: _, model: __, ...grid } = p.spec;
  return { model: p.model, dir: p.dir, resumed: p.resumed, ...grid };
}

/** The engine's event with the point as a program sees it (its place on the grid, no plan). */
function publicEvent(e: PointEvent): SweepEvent {
  const point = pointInfo(e.point);
  if (e.type === 'point-event') return { type: e.type, index: e.index, point, event: e.event };
  if (e.type === 'point-ended') return { type: e.type, index: e.index, point, result: e.result, cut_off: e.cut_off };
  return { type: e.type, index: e.index, point };
}

/**
 * Runs a sweep as `bas sweep` does: one eval per model and point of the grid, each in its own
 * run folder under `output`, one after the other, and reads the curves back. `config` takes
 * the keys of a TOML run configuration with `models`, and the axis as a list:
 * `task.num_transactions` (the rows), or the reasoning budget, `sampling.reasoning_effort` or
 * `sampling.max_tokens` (with `task.fault_rate` listing several too, if wanted). The key is
 * read from the environment, as `bas sweep` reads it. Rejects with a ConfigError for bad
 * settings or folders, or with the error of a point's run that could not start.
 */
export async function runSweep(
  config: SweepConfig | Record<string, never>,
  options: RunSweepOptions = {},
): Promise<SweepRunResult> {
  if (options.resume !== undefined && Object.keys(config ?? {}).length > 0)
    throw new ConfigError('runSweep() with resume continues a sweep with its saved settings: give {} as its config');
  const flags: SweepFlags =
    options.resume === undefined
      ? (sweepFlagsOf(config as SweepConfig, 'runSweep()') as SweepFlags)
      : { resume: options.resume };
  const run = await planSweep([], flags);
  if (run.fresh) {
    checkOutputs([{ flag: 'output', path: run.dir, kind: 'folder' }]);
    await writeSweepPlan(run.dir, run.file);
  }
  const onEvent = options.onEvent;
  const outcome = await runSweepPlan(run, {
    signal: options.signal,
    onEvent: onEvent ? (e) => onEvent(publicEvent(e)) : undefined,
  });
  if (outcome.kind === 'failed') throw outcome.error;
  if (outcome.kind === 'stopped')
    return { dir: run.dir, outcome: { kind: 'stopped', index: outcome.index, result: outcome.result }, sweep: null };
  const failed = outcome.failed.map((f) => f.index);
  return { dir: run.dir, outcome: { kind: 'done', failed, cut_off: outcome.cut_off }, sweep: await readSweep(run.dir) };
}
