/**
 * The sweep `bas sweep` and `runSweep` run, every point planned before the first runs
 * (`planSweep`): a new sweep from its flags (sweep-grid.ts), or a resumed one's sweep.json with
 * its endpoint confirmed.
 */
import { asClause } from '../io/outside-text.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ErrorRateError, FatalRunError, InterruptedError } from '../errors/index.js';
import { RUN_FILE } from '../runfile/files.js';
import {
  planAxis,
  planModels,
  readSweepPlan,
  sweepFile,
  SWEEP_AXES,
  type SweepAxis,
  type SweepPlan,
  type SweepPlanPoint,
} from '../runfile/sweep-file.js';
import { pointName } from '../report/sweep.js';
import type { EvalFlags } from '../settings/settings.js';
import { configPathFrom, loadConfigFile } from '../settings/config.js';
import { loadProviders } from '../settings/providers.js';
import { unconfirmedPlanEndpoint, type EndpointFlags } from '../settings/resume-trust.js';
import type { RunPlan } from '../engine/run-eval.js';
import { planPoint, type SweepRun } from '../engine/sweep.js';
import { readForResume, type ResumeRead } from '../engine/resume-read.js';
import { SETTINGS } from '../settings/setting-table.js';
import type { Setting } from '../settings/setting-entry.js';
import { evalPlanFromFlags } from './eval-plan.js';
import { AXES, newSweep, OWN, type SweepFlags } from './sweep-grid.js';
import * as std from '../io/std.js';
import { shellWord } from '../display/format.js';

export type { SweepFlags } from './sweep-grid.js';

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

/** A resumed point's plan, and its folder as read to learn whether it is finished (handed on to its run). */
interface ReadPoint {
  plan: RunPlan;
  read?: ResumeRead;
}

/**
 * Whether every point of a resumed sweep has each of its rollouts recorded and scored, or is
 * recorded as cut off by the token limit, so that its resume sends no request. What it reads of
 * each point (its plan, its folder: once) goes into `read`, for its run. Anything unreadable is
 * left for the run itself to report.
 */
async function everyPointFinished(
  dir: string,
  file: SweepPlan,
  confirm: Record<string, string>,
  read: Map<string, ReadPoint>,
): Promise<boolean> {
  try {
    for (const p of file.points) {
      const sub = join(dir, p.folder);
      if (!existsSync(join(sub, RUN_FILE))) return false;
      const plan = await evalPlanFromFlags([], { resume: sub, ...confirm }, { models: true });
      // Unreadable: the point's run reports it; its plan is kept all the same.
      const folder = await readForResume(plan).catch(() => undefined);
      read.set(p.folder, folder ? { plan, read: folder } : { plan });
      // A point recorded as cut off is final: its resume runs nothing (engine/sweep.ts).
      if (folder === undefined || (folder.left > 0 && !folder.cutOff)) return false;
    }
    return true;
  } catch {
    return false;
  }
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
async function planPoints(
  dir: string,
  file: SweepPlan,
  fresh: boolean,
  confirm: Record<string, string>,
  read: Map<string, ReadPoint>,
): Promise<SweepRun> {
  const models = planModels(file);
  const bases = new Map<string, RunPlan>();
  const run: SweepRun = { dir, file, fresh, points: [] };
  for (const spec of file.points) {
    const sub = join(dir, spec.folder);
    const model = spec.model ?? models[0] ?? '';
    try {
      if (!fresh && existsSync(join(sub, RUN_FILE))) {
        const known = read.get(spec.folder);
        const plan = known?.plan ?? (await evalPlanFromFlags([], { resume: sub, ...confirm }, { models: true }));
        run.points.push({ spec, model, dir: sub, resumed: true, plan, ...(known?.read ? { read: known.read } : {}) });
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
        (m) =>
          `sweep stopped at ${where}: ${asClause(m)}; continue the whole sweep with bas sweep --resume ${shellWord(dir)}`,
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

/**
 * The sweep `bas sweep` runs, every point planned: a resume's sweep.json (its endpoint
 * confirmed by the flags given again, or by the registry), or a new sweep from its flags.
 */
export async function planSweep(words: string[], flags: SweepFlags): Promise<SweepRun> {
  let dir: string;
  let file: SweepPlan;
  /** Endpoint flags given again on a resume: they go to every point. */
  const confirm: Record<string, string> = {};
  /** Resumed points' plans and folders, read once. */
  const read = new Map<string, ReadPoint>();
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
  return planPoints(dir, file, fresh, confirm, read);
}
