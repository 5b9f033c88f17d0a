/**
 * A new sweep from its flags: its models, the grid (one axis, with its values in the order they
 * run, and the fault rates), each point's folder, and the sweep folder (new, or holding only
 * failed starts). What it makes is sweep.json's content; sweep-plan.ts plans its points.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { heldRun } from '../runfile/results.js';
import { modelFolderPart } from '../runfile/files.js';
import {
  isPointFolder,
  MAX_POINTS,
  SWEEP_AXES,
  type SweepAxis,
  type SweepPlan,
  type SweepPlanPoint,
} from '../runfile/sweep-file.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import type { EvalFlags } from '../settings/settings.js';
import { configPathFrom, loadConfigFile } from '../settings/config.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { flagName } from '../settings/flag.js';
import { evalPlanFromFlags } from './eval-plan.js';
import { shellWord } from '../display/format.js';

export type SweepFlags = Omit<EvalFlags, 'model'> & {
  /** One model per -m (commander collects them; a single string from older callers). */
  model?: string | string[];
  html?: string;
  svg?: string;
  csv?: boolean;
  verbose?: boolean;
};

/** A flag that takes a value, as text (commander gives `true` for a value-less boolean form). */
function textFlag(v: string | boolean | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Flags a sweep does not pass to eval: its own, or ones it sets per point. */
export const OWN = new Set([
  'numTransactions',
  'faultRate',
  'output',
  'resume',
  'json',
  'csv',
  'html',
  'svg',
  'progress',
  'shard',
  'verbose',
  'model',
]);

/**
 * Whether a folder holds only point folders whose run failed before scoring anything (a
 * sweep stopped at its first point by a refused key or a wrong URL): such a sweep folder may
 * be started again from scratch, as eval starts such a run folder again.
 */
async function onlyFailedStarts(dir: string): Promise<boolean> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !isPointFolder(entry.name)) return false;
    if ((await heldRun(join(dir, entry.name))) !== 'failed-start') return false;
  }
  return true;
}

/** Most models in one sweep: a figure with more curves than this is not readable. */
const MAX_MODELS = 20;

/** The models of a new sweep: every -m in order, else the config's `models`, else its `model`. */
function sweepModels(given: string | string[] | undefined, words: string[], config: string | undefined): string[] {
  const flags = given === undefined ? [] : Array.isArray(given) ? given : [given];
  let models = flags;
  if (models.length === 0) {
    const path = configPathFrom(words, config, 'bas sweep');
    const file = path ? loadConfigFile(path, { models: true }) : null;
    const listed = file?.models as string[] | undefined;
    models = listed ?? (typeof file?.model === 'string' ? [file.model] : []);
  }
  if (models.length === 0)
    throw new ConfigError(
      'bas sweep needs a model: -m MODEL (repeat -m for several, one curve each), or models = [...] in its config file',
    );
  if (models.length > MAX_MODELS)
    throw new ConfigError(`a sweep takes at most ${MAX_MODELS} models, got ${models.length}`);
  const twice = models.find((m, i) => models.indexOf(m) !== i);
  if (twice !== undefined)
    throw new ConfigError(`-m/--model names ${JSON.stringify(twice)} twice: give each model once`);
  return models;
}

/** A model's part of its folders' names: lower case letters, digits, dots and dashes. */
function slug(model: string): string {
  const s = model
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 60);
  return s === '' ? 'model' : s;
}

/** A model's prefix to its points' folders: none with one model, else its slug (`-2`, `-3` after a repeat) and `--`. */
function folderPrefixes(models: string[]): Map<string, string> {
  const prefixes = new Map<string, string>();
  const taken = new Set<string>();
  for (const m of models) {
    let p = slug(m);
    for (let k = 2; taken.has(p); k++) p = `${slug(m)}-${k}`;
    taken.add(p);
    prefixes.set(m, models.length > 1 ? `${p}--` : '');
  }
  return prefixes;
}

/**
 * What a sweep varies, from its flags: the axis and its values (in the order run), and the
 * fault rates. A budget sweep's points all have one row count, its `rows`; a sweep along the
 * rows has none of its own.
 */
type SweepGrid = { rates: Array<number | null> } & (
  | { axis: 'num_transactions'; values: number[] }
  | { axis: 'reasoning_effort' | 'max_tokens'; values: Array<number | string>; rows: number }
);

/**
 * The points of the grid: every axis value × fault rate × model. Folder names: `rows-12` (and
 * `-fault-0.1`) as bas 0.3 named them when there is one model, prefixed with the model
 * (`builtin-oracle--rows-12`) when there are several; a budget sweep's are `effort-low` or
 * `max-tokens-4000` (SWEEP_AXES). Two models whose names make the same prefix get `-2`, `-3` after it.
 */
function gridPoints(models: string[], grid: SweepGrid): SweepPlanPoint[] {
  const prefixes = folderPrefixes(models);
  const place = (v: number | string): Omit<SweepPlanPoint, 'fault_rate' | 'folder'> =>
    grid.axis === 'num_transactions'
      ? { num_transactions: Number(v) }
      : grid.axis === 'reasoning_effort'
        ? { num_transactions: grid.rows, reasoning_effort: String(v) }
        : { num_transactions: grid.rows, max_tokens: Number(v) };
  return (grid.values as Array<number | string>).flatMap((v) =>
    grid.rates.flatMap((f) =>
      models.map((m) => {
        const name = `${SWEEP_AXES[grid.axis].folder}-${v}`;
        const folder = `${prefixes.get(m)}${name}${f === null ? '' : `-fault-${f}`}`;
        return { model: m, ...place(v), fault_rate: f, folder };
      }),
    ),
  );
}

function defaultSweepDir(models: string[]): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const name = models.length === 1 ? modelFolderPart(models[0]!, 80) : `${models.length}-models`;
  return join('runs', `${stamp}-sweep-${name}`);
}

/** Every axis a sweep may vary along, in SWEEP_AXES's order (the rows first). */
export const AXES = Object.keys(SWEEP_AXES) as SweepAxis[];

/** Each axis's values as its flag lists them, or null when the flag is not given. */
function listedAxes(
  flags: SweepFlags,
): Array<{ axis: SweepAxis; flag: string; values: Array<number | string> | null }> {
  return AXES.map((axis) => {
    const spec = COMMAND_FLAGS.sweep[SWEEP_AXES[axis].setting];
    const flag = flagName(spec);
    const text = textFlag(flags[SWEEP_AXES[axis].setting]);
    return { axis, flag, values: text === undefined ? null : spec.parse(text, flag) };
  });
}

/**
 * What a new sweep varies, from its flags: one of --num-transactions, --reasoning-effort and
 * --max-tokens may list several values, and that is the axis (rows when none does). A budget
 * sweep's points all have the rows given once, else those its models' settings give.
 */
async function sweepGrid(words: string[], flags: SweepFlags, model: string): Promise<SweepGrid> {
  const given = listedAxes(flags);
  const several = given.filter((g) => g.values !== null && g.values.length > 1);
  if (several.length > 1)
    throw new ConfigError(
      `a sweep has one axis, but ${several.map((g) => g.flag).join(' and ')} each list several values: give several to one of them`,
    );
  const rowsGiven = given.find((g) => g.axis === 'num_transactions')!;
  const { axis, values: listed } = several[0] ?? rowsGiven;
  if (listed === null)
    throw new ConfigError(
      'bas sweep needs --num-transactions with the points, e.g. --num-transactions 12,24,60,120,240, or the reasoning budget as its axis: --reasoning-effort low,medium,high or --max-tokens 1000,4000,16000',
    );
  const faultRate = textFlag(flags.faultRate);
  const rates = faultRate === undefined ? [null] : COMMAND_FLAGS.sweep.faultRate.parse(faultRate, '--fault-rate');
  if (axis === 'num_transactions') return { axis, values: listed as number[], rates };
  // A budget's points run from the smallest, with the rows given once, else the model's
  // settings' (config or default).
  const rank = SWEEP_AXES[axis].rank;
  const values = [...listed].sort((a, b) => rank(a) - rank(b));
  const rows =
    (rowsGiven.values?.[0] as number | undefined) ??
    (await evalPlanFromFlags(words, { ...evalFlagsOf(flags, axis), model }, { models: true })).settings.numTransactions;
  return { axis, values, rows, rates };
}

/** The eval flags a sweep passes on to every point: those given, less its own and its axis's. */
function evalFlagsOf(flags: SweepFlags, axis: SweepAxis): SweepPlan['flags'] {
  const axisFlag = SWEEP_AXES[axis].setting;
  return Object.fromEntries(
    Object.entries(flags).filter(([k, v]) => v !== undefined && !OWN.has(k) && k !== axisFlag),
  ) as SweepPlan['flags'];
}

/** A new sweep's folder and plan, from its flags: the grid, the models, the folder (empty, or only failed starts). */
export async function newSweep(words: string[], flags: SweepFlags): Promise<{ dir: string; file: SweepPlan }> {
  const output = textFlag(flags.output);
  // sweep.json keeps the flags for --resume, and a file must never hold a secret.
  const baseUrl = textFlag(flags.baseUrl);
  if (baseUrl !== undefined && urlWithoutCredentials(baseUrl) !== baseUrl) {
    throw new ConfigError(
      '--base-url carries credentials (user:password@ or a key in its query), which sweep.json would keep for --resume: give the key through --api-key-var instead',
    );
  }
  const models = sweepModels(flags.model, words, textFlag(flags.config));
  const grid = await sweepGrid(words, flags, models[0]!);
  const count = grid.values.length * grid.rates.length * models.length;
  if (count > MAX_POINTS)
    throw new ConfigError(
      `a sweep has at most ${MAX_POINTS} runs (models × points × fault rates); these make ${count}`,
    );
  const dir = output ?? defaultSweepDir(models);
  if (existsSync(dir) && readdirSync(dir).length > 0 && !(await onlyFailedStarts(dir))) {
    throw new ConfigError(
      `sweep folder ${dir} exists and is not empty: continue it with bas sweep --resume ${shellWord(dir)}, or give another --output`,
    );
  }
  const file: SweepPlan = {
    kind: 'bas-sweep',
    created_at: new Date().toISOString(),
    model: models.length === 1 ? models[0]! : null,
    models,
    ...(grid.axis === 'num_transactions' ? {} : { axis: grid.axis }),
    points: gridPoints(models, grid),
    flags: evalFlagsOf(flags, grid.axis),
    words,
  };
  return { dir, file };
}
