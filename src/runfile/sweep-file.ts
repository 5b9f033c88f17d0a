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
import { REASONING_EFFORTS, type ReasoningEffort } from '../settings/setting-parse.js';

/** Most runs (models × points) a sweep may have. */
export const MAX_POINTS = 100;

/** A plan lists at most a few hundred points; far past that it is not one bas wrote. */
const MAX_PLAN_BYTES = 10_000_000;

/** A point's place on every axis: its rows, and a budget sweep's budget (null or absent: not sent). */
export interface AxisPlace {
  num_transactions: number;
  reasoning_effort?: string | null;
  max_tokens?: number | null;
}

/** What one axis is: the setting its values are, where its points' folders start, its words. */
interface AxisSpec {
  /** The setting a point's value on the axis is (read and checked as that setting's value). */
  setting: 'numTransactions' | 'reasoningEffort' | 'maxTokens';
  /** How its points' folder names start: `rows-12`, `effort-low`, `max-tokens-4000`. */
  folder: string;
  /** The axis in words, under a figure. */
  label: string;
  /** A table column's head. */
  head: string;
  /** What a sweep's tables are drawn against, in its first line. */
  against: string;
  /** The heading of its curves on a page. */
  curves: string;
  /** A point's place in words ("24 rows", "reasoning effort low"), from its value in words. */
  place: (value: string) => string;
  /** A value's place along the axis as a number: rows, the token limit, or an effort's rank (none 0 … xhigh 5). */
  rank: (value: number | string | null) => number;
  /** A tick of a figure drawn by rank, in words; absent: the number itself. */
  tick?: (rank: number) => string;
}

/**
 * What a sweep's points may vary along: ledger rows (every plan before 0.4.1), or the
 * reasoning budget, sent as `reasoning_effort` or `max_tokens` (since 0.4.1). Keyed by the
 * point's field (and sweep.json's `axis`). Every command, report and figure takes an axis's
 * setting and words from here.
 */
export const SWEEP_AXES = {
  num_transactions: {
    setting: 'numTransactions',
    folder: 'rows',
    label: 'rows per ledger',
    head: 'rows',
    against: 'ledger rows',
    curves: 'Difficulty curves',
    place: (v) => `${v} rows`,
    rank: (v) => Number(v ?? 0),
  },
  reasoning_effort: {
    setting: 'reasoningEffort',
    folder: 'effort',
    label: 'reasoning effort',
    head: 'reasoning effort',
    against: 'reasoning effort',
    curves: 'Curves against the reasoning budget',
    place: (v) => `reasoning effort ${v}`,
    rank: (v) => REASONING_EFFORTS.indexOf(v as ReasoningEffort),
    tick: (rank) => REASONING_EFFORTS[rank] ?? NOT_SENT,
  },
  max_tokens: {
    setting: 'maxTokens',
    folder: 'max-tokens',
    label: 'max_tokens (completion token limit)',
    head: 'max_tokens',
    against: 'max_tokens',
    curves: 'Curves against the reasoning budget',
    place: (v) => `max_tokens ${v}`,
    rank: (v) => Number(v ?? 0),
  },
} as const satisfies Record<string, AxisSpec>;

export type SweepAxis = keyof typeof SWEEP_AXES;

const AXES = Object.keys(SWEEP_AXES) as SweepAxis[];

/** A budget the run did not send, in words. */
const NOT_SENT = 'not sent';

/** A point's value on `axis` in words: "24", "low", "4000", or "not sent". */
export function axisText(p: AxisPlace, axis: SweepAxis): string {
  const v = p[axis];
  return v === null || v === undefined ? NOT_SENT : String(v);
}

/** A point's place on `axis` as a number (an effort by its rank). */
export function axisRank(p: AxisPlace, axis: SweepAxis): number {
  return SWEEP_AXES[axis].rank(p[axis] ?? null);
}

/**
 * Where a point is, in words: "24 rows", "reasoning effort low" or "max_tokens 4000". A
 * planned point's axis (when not given) is the budget it carries, else its rows.
 */
export function placeText(
  p: AxisPlace,
  axis: SweepAxis = AXES.find((a) => a !== 'num_transactions' && p[a] != null) ?? 'num_transactions',
): string {
  return SWEEP_AXES[axis].place(axisText(p, axis));
}

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
const FOLDER = new RegExp(
  `^([0-9a-z][0-9a-z._-]*--)?(${AXES.map((a) => SWEEP_AXES[a].folder).join('|')})-[0-9a-z.-]+$`,
);

/** Whether a folder name is one a sweep gives its points. */
export function isPointFolder(name: string): boolean {
  return FOLDER.test(name);
}

/** What a plan's points vary along. */
export function planAxis(plan: Pick<SweepPlan, 'axis'>): SweepAxis {
  return plan.axis ?? 'num_transactions';
}

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
