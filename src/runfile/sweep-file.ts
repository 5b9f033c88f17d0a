/**
 * sweep.json: a sweep folder's plan, the models, the points and the eval flags they run with
 * (never a key: flags name the key's variable, not the key). Written when a sweep starts, read
 * back by `bas sweep --resume` and `bas leaderboard`, which take it as a file from elsewhere:
 * checked in shape here, and its endpoint checked by the sweep command before any request.
 *
 * bas 0.3 wrote one model (`model`, and `-m` inside `flags`) and points without a model; 0.4
 * adds `models` and a `model` per point. Both read here; `planModels` gives the models of either.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, FileTooLargeError } from '../errors/index.js';
import { readSmallFile } from '../io/jsonl.js';
import { fileSink, withSink } from '../io/output.js';
import { SWEEP_FILE } from './files.js';

/** Most runs (models × points) a sweep may have. */
export const MAX_POINTS = 100;

/** A plan lists at most a few hundred points; far past that it is not one bas wrote. */
const MAX_PLAN_BYTES = 10_000_000;

/**
 * What a sweep's points vary along: ledger rows (every plan before 0.4.1), or the reasoning
 * budget, sent as `reasoning_effort` or `max_tokens` (since 0.4.1).
 */
export type SweepAxis = 'num_transactions' | 'reasoning_effort' | 'max_tokens';

/**
 * One run of the grid: its model (absent in a 0.3 plan), its place and its folder. A point of
 * a budget sweep also has the budget it is sent (`reasoning_effort` or `max_tokens`).
 */
export interface SweepPlanPoint {
  model?: string;
  num_transactions: number;
  fault_rate: number | null;
  reasoning_effort?: string;
  max_tokens?: number;
  folder: string;
}

/** What sweep.json holds. `flags` are eval's flags as commander gave them (strings and switches). */
export interface SweepPlan {
  kind: 'bas-sweep';
  created_at: string;
  /** The model when there is one (a 0.3 plan's only model), else null. */
  model: string | null;
  /** Every model, in order (0.4; absent in a 0.3 plan). */
  models?: string[];
  /** What the points vary along; absent: ledger rows (every plan before 0.4.1). */
  axis?: SweepAxis;
  points: SweepPlanPoint[];
  /** The eval flags every point runs with (the grid's own flags, and the model, left out). */
  flags: Record<string, string | boolean | undefined>;
  /** `@FILE` words of a TOML configuration, as given. */
  words: string[];
}

/**
 * A point's folder: `rows-…` (a budget sweep's `effort-…` or `max-tokens-…`), after a model's
 * prefix (`builtin-oracle--rows-12`) when there are several.
 */
const FOLDER = /^([0-9a-z][0-9a-z._-]*--)?(rows|effort|max-tokens)-[0-9a-z.-]+$/;

/** Whether a folder name is one a sweep gives its points. */
export function isPointFolder(name: string): boolean {
  return FOLDER.test(name);
}

/** What a plan's points vary along. */
export function planAxis(plan: Pick<SweepPlan, 'axis'>): SweepAxis {
  return plan.axis ?? 'num_transactions';
}

const AXES: readonly SweepAxis[] = ['num_transactions', 'reasoning_effort', 'max_tokens'];

/** The path of a sweep folder's plan (for refusing an output over it). */
export function sweepFile(dir: string): string {
  return join(dir, SWEEP_FILE);
}

/** Whether a folder holds a sweep plan. */
export function isSweepFolder(dir: string): boolean {
  return existsSync(sweepFile(dir));
}

/** The models of a plan: its `models`, or a 0.3 plan's one model (its `model`, else `-m` among its flags). */
export function planModels(plan: SweepPlan): string[] {
  if (plan.models) return plan.models;
  const m = plan.model ?? plan.flags.model;
  return typeof m === 'string' ? [m] : [];
}

/** Writes the plan into `dir`, creating the folder. */
export async function writeSweepPlan(dir: string, plan: SweepPlan): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new ConfigError(
      `--output: cannot create the sweep folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  await withSink(fileSink(sweepFile(dir), '--output', true), async (sink) =>
    sink.write(JSON.stringify(plan, null, 2) + '\n'),
  );
}

/** Takes a plan back (a sweep whose first point failed before scoring anything). */
export function removeSweepPlan(dir: string): void {
  rmSync(sweepFile(dir), { force: true });
}

/** Reads and checks the plan of a sweep folder; `who` starts error messages (`--resume`, `leaderboard`). */
export function readSweepPlan(dir: string, who = '--resume'): SweepPlan {
  const file = sweepFile(dir);
  if (!existsSync(file)) throw new ConfigError(`${who}: ${dir} is not a sweep folder (no ${SWEEP_FILE})`);
  let plan: SweepPlan;
  try {
    plan = JSON.parse(readSmallFile(file, MAX_PLAN_BYTES, true)) as SweepPlan;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (err instanceof FileTooLargeError)
      throw new ConfigError(`${who}: ${file} is larger than ${MAX_PLAN_BYTES} bytes: not a bas sweep plan`);
    throw new ConfigError(`${who}: ${file} is not valid JSON (${(err as Error).message.slice(0, 120)})`);
  }
  const ok =
    plan?.kind === 'bas-sweep' &&
    Array.isArray(plan.points) &&
    (plan.axis === undefined || AXES.includes(plan.axis)) &&
    plan.points.length <= MAX_POINTS &&
    (plan.models === undefined ||
      (Array.isArray(plan.models) && plan.models.every((m) => typeof m === 'string' && m !== ''))) &&
    plan.points.every(
      (p) =>
        typeof p?.num_transactions === 'number' &&
        (p.fault_rate === null || p.fault_rate === undefined || typeof p.fault_rate === 'number') &&
        (p.reasoning_effort === undefined || typeof p.reasoning_effort === 'string') &&
        (p.max_tokens === undefined || typeof p.max_tokens === 'number') &&
        typeof p.folder === 'string' &&
        FOLDER.test(p.folder) &&
        (p.model === undefined || (typeof p.model === 'string' && (plan.models ?? []).includes(p.model))),
    ) &&
    new Set(plan.points.map((p) => p.folder)).size === plan.points.length &&
    typeof plan.flags === 'object' &&
    plan.flags !== null &&
    !Array.isArray(plan.flags) &&
    Object.values(plan.flags).every((v) => typeof v === 'string' || typeof v === 'boolean') &&
    Array.isArray(plan.words) &&
    plan.words.every((w) => typeof w === 'string');
  if (!ok) throw new ConfigError(`${who}: ${file} is not a bas sweep plan (damaged or written by something else)`);
  for (const p of plan.points) p.fault_rate ??= null;
  return plan;
}
