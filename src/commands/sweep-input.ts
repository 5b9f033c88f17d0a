/**
 * What `bas sweep` reads before it runs: a new sweep's grid, models and folder from its flags,
 * or a resumed one's sweep.json with its endpoint confirmed; then every point's plan (`planSweep`),
 * before the first point runs.
 */
import { asClause } from '../io/outside-text.js';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ErrorRateError, FatalRunError, InterruptedError } from '../errors/index.js';
import { heldRun } from '../runfile/results.js';
import { modelFolderPart, RUN_FILE } from '../runfile/files.js';
import {
  isPointFolder,
  MAX_POINTS,
  planAxis,
  planModels,
  readSweepPlan,
  sweepFile,
  SWEEP_AXES,
  type SweepAxis,
  type SweepPlan,
  type SweepPlanPoint,
} from '../runfile/sweep-file.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import { pointName } from '../report/sweep.js';
import type { EvalFlags } from '../settings/settings.js';
import { configPathFrom, loadConfigFile } from '../settings/config.js';
import { loadProviders } from '../settings/providers.js';
import { unconfirmedPlanEndpoint, type EndpointFlags } from '../settings/resume-trust.js';
import type { RunPlan } from '../engine/run-eval.js';
import { planPoint, type SweepRun } from '../engine/sweep.js';
import { rolloutsLeft } from '../engine/session.js';
import { SETTINGS, type Setting } from '../settings/setting-table.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { flagName } from '../settings/flag.js';
import { evalPlanFromFlags } from './eval-run.js';
import * as std from '../io/std.js';

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
const OWN = new Set([
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

/** The flags that say where the key goes; a resumed sweep may be given them again to confirm its plan's. */
const ENDPOINT_FLAGS = new Set(['baseUrl', 'apiKeyVar', 'provider', 'providers']);

/**
 * A resumed sweep takes its plan from a file, as a resumed run takes run.json: the endpoint it
 * names must be confirmed or named by the user's registry (src/settings/resume-trust.ts), before
 * any point runs.
 */
function refuseUnconfirmedPlan(plan: SweepPlan, confirm: EndpointFlags, planFile: string): void {
  const flags = plan.flags as EndpointFlags & { config?: string };
  const configPath = configPathFrom(plan.words, flags.config, 'bas sweep');
  const config = configPath ? loadConfigFile(configPath, { models: true }) : null;
  const registry = loadProviders(confirm.providers ?? null, std.env());
  const why = unconfirmedPlanEndpoint(flags, config, confirm, registry, std.env(), planFile);
  if (why !== null) throw new ConfigError(why);
}

/**
 * Whether every point of a resumed sweep has each of its rollouts recorded and scored, so that
 * its resume sends no request. Each point's plan read for this goes into `read`, for its run.
 * Anything unreadable is left for the run itself to report.
 */
async function everyPointFinished(
  dir: string,
  file: SweepPlan,
  confirm: Record<string, string>,
  read: Map<string, RunPlan>,
): Promise<boolean> {
  try {
    for (const p of file.points) {
      const sub = join(dir, p.folder);
      if (!existsSync(join(sub, RUN_FILE))) return false;
      const plan = await evalPlanFromFlags([], { resume: sub, ...confirm }, { models: true });
      const { n, rollouts, shard } = plan.tasks;
      if ((await rolloutsLeft(sub, n, rollouts, shard)).pending > 0) return false;
      read.set(p.folder, plan);
    }
    return true;
  } catch {
    return false;
  }
}

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

/**
 * The same error with another message: a point's failure keeps its kind (and so its exit
 * code) when the sweep says which point it was and how to go on. An error of no known kind
 * (a bug) is left as it is.
 */
export function reworded(err: unknown, message: (text: string) => string): unknown {
  if (!(err instanceof Error)) return err;
  const text = message(err.message.replace(/[.\s]+$/, ''));
  if (err instanceof ConfigError) return new ConfigError(text, { cause: err });
  if (err instanceof FatalRunError) return new FatalRunError(text, { cause: err });
  if (err instanceof ErrorRateError) return new ErrorRateError(text, { cause: err });
  if (err instanceof InterruptedError) return new InterruptedError(text, err.exitCode);
  return err;
}

/** Every axis a sweep may vary along, in SWEEP_AXES's order (the rows first). */
const AXES = Object.keys(SWEEP_AXES) as SweepAxis[];

/** A point's value on each axis it has, as the text of that axis's flag (by its setting). */
function axisFlags(p: SweepPlanPoint): Partial<Record<(typeof SWEEP_AXES)[SweepAxis]['setting'], string>> {
  return Object.fromEntries(AXES.filter((a) => p[a] !== undefined).map((a) => [SWEEP_AXES[a].setting, String(p[a])]));
}

/** The eval flags of a fresh point: the plan's, its own model and place in the grid, and confirmed endpoint flags. */
function pointFlags(plan: SweepPlan, p: SweepPlanPoint, sub: string, confirm: Record<string, string>): EvalFlags {
  return {
    ...(plan.flags as EvalFlags),
    ...confirm,
    ...(p.model === undefined ? {} : { model: p.model }),
    ...axisFlags(p),
    ...(p.fault_rate === null ? {} : { faultRate: String(p.fault_rate) }),
    output: sub,
  };
}

/**
 * A point of sweep.json, a file from elsewhere: its grid values are checked as the flags are
 * (the rows, the fault rate, then each budget it has, as its axis's setting).
 */
function checkedPoint(spec: SweepPlanPoint, file: string): SweepPlanPoint {
  const { numTransactions, faultRate } = SETTINGS;
  const checked: SweepPlanPoint = {
    ...spec,
    num_transactions: numTransactions.parse(spec.num_transactions, `${file}: "num_transactions"`),
    fault_rate: spec.fault_rate === null ? null : faultRate.parse(spec.fault_rate, `${file}: "fault_rate"`),
  };
  for (const axis of AXES) {
    if (axis === 'num_transactions' || spec[axis] === undefined) continue;
    const setting: Setting<unknown> = SETTINGS[SWEEP_AXES[axis].setting];
    (checked as unknown as Record<string, unknown>)[axis] = setting.parse(spec[axis], `${file}: "${axis}"`);
  }
  return checked;
}

/**
 * Each point's plan, before the first runs: a point begun already resumes with its run.json's
 * plan; the others take their model's plan (resolved once from the sweep's flags and config)
 * with their own rows, fault rate and folder. On a resume a point that cannot be planned says
 * which it is and how to go on.
 */
async function planSweep(
  dir: string,
  file: SweepPlan,
  fresh: boolean,
  confirm: Record<string, string>,
  read: Map<string, RunPlan>,
): Promise<SweepRun> {
  const models = planModels(file);
  const bases = new Map<string, RunPlan>();
  const run: SweepRun = { dir, file, fresh, points: [] };
  for (const spec of file.points) {
    const sub = join(dir, spec.folder);
    const model = spec.model ?? models[0] ?? '';
    try {
      if (!fresh && existsSync(join(sub, RUN_FILE))) {
        const plan =
          read.get(spec.folder) ?? (await evalPlanFromFlags([], { resume: sub, ...confirm }, { models: true }));
        run.points.push({ spec, model, dir: sub, resumed: true, plan });
        continue;
      }
      let base = bases.get(model);
      if (base === undefined) {
        base = await evalPlanFromFlags(file.words, pointFlags(file, spec, sub, confirm), { models: true });
        if (fresh) refuseComparison(base);
        bases.set(model, base);
      }
      run.points.push(planPoint(base, checkedPoint(spec, sweepFile(dir)), sub));
    } catch (err) {
      if (fresh) throw err;
      const where = `${spec.model === undefined ? '' : `${spec.model}, `}${pointName(spec, planAxis(file))}`;
      throw reworded(
        err,
        (m) => `sweep stopped at ${where}: ${asClause(m)}; continue the whole sweep with bas sweep --resume ${dir}`,
      );
    }
  }
  return run;
}

/**
 * A config file's `against` (with `until` and `margin`) reaches a sweep's points, whose flags
 * leave them out: each point's tasks are its own, so no point can be compared with RUN task by
 * task, and a run.json claiming the rule would record one that never ran. Refused here.
 */
function refuseComparison(base: RunPlan): void {
  if (base.settings.against !== null)
    throw new ConfigError(
      `a sweep does not take against (with until and margin): each point runs its own tasks; compare a point's run with bas eval --against or bas compare`,
    );
}

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
async function newSweep(words: string[], flags: SweepFlags): Promise<{ dir: string; file: SweepPlan }> {
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
      `sweep folder ${dir} exists and is not empty: continue it with bas sweep --resume ${dir}, or give another --output`,
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

/**
 * The sweep `bas sweep` runs, every point planned: a resume's sweep.json (its endpoint
 * confirmed by the flags given again, or by the registry), or a new sweep from its flags.
 */
export async function readSweep(words: string[], flags: SweepFlags): Promise<SweepRun> {
  let dir: string;
  let file: SweepPlan;
  /** Endpoint flags given again on a resume: they go to every point. */
  const confirm: Record<string, string> = {};
  /** Resumed points' plans, read once. */
  const read = new Map<string, RunPlan>();
  if (flags.resume) {
    // `adapt: true` is commander's default for `--no-adapt`, not something the user said.
    const extra = Object.entries(flags).filter(
      ([k, v]) => v !== undefined && !OWN.has(k) && !ENDPOINT_FLAGS.has(k) && !(k === 'adapt' && v === true),
    );
    if (extra.length || words.length || flags.numTransactions || flags.faultRate || flags.output || flags.model) {
      throw new ConfigError(
        '--resume continues a sweep with its saved models, points and settings; it takes only --json, --csv, --html, --verbose, --no-progress and, to confirm its endpoint, --base-url, --api-key-var, --provider and --providers',
      );
    }
    dir = flags.resume;
    file = readSweepPlan(dir);
    for (const k of ENDPOINT_FLAGS) {
      const v = flags[k as keyof SweepFlags];
      if (typeof v === 'string') confirm[k] = v;
    }
    // A finished sweep sends nothing (each point's resume has nothing to do), so re-printing
    // its table needs no endpoint confirmed.
    if (!(await everyPointFinished(dir, file, confirm, read))) refuseUnconfirmedPlan(file, confirm, sweepFile(dir));
  } else {
    ({ dir, file } = await newSweep(words, flags));
  }
  // Every point is planned before any runs: a setting a point's run would refuse (an unknown
  // built-in model, a bad --temperature) is refused before sweep.json is written.
  const fresh = !flags.resume;
  return planSweep(dir, file, fresh, confirm, read);
}
