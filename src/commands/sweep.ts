/**
 * `bas sweep`: difficulty curves in one command. Runs one eval per model and point of a grid
 * over --num-transactions (× --fault-rate when given) into sub-folders of one sweep folder,
 * each through the engine's `runEval`, then prints (and draws) reward, `bas_correct` and
 * `fault_audit` against the rows with 95% intervals, one curve per model.
 *
 * The sweep folder holds sweep.json (the models, the points and the eval flags, never a key:
 * flags name the key's variable, not the key; src/runfile/sweep-file.ts reads and writes it)
 * and one run folder per model and point, so `bas leaderboard`, `bas report` and `bas compare`
 * read it as they read any run. `--resume SWEEP_DIR` continues every point: unfinished and
 * errored rollouts are run again (eval's own resume), points not yet started are started.
 * A sweep of bas 0.3 (one model, no `models` in sweep.json) reads and resumes the same way.
 *
 * Quiet by default: one line per point on stderr (live on a terminal) and the final table on
 * stdout; `--verbose` adds each point's own summary tables, as `bas eval` prints them.
 */
import { asClause } from '../io/outside-text.js';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ErrorRateError, FatalRunError, InterruptedError } from '../errors/index.js';
import { fileSink, withSink } from '../io/output.js';
import { terminalText } from '../io/terminal-text.js';
import { runInputs } from '../runfile/read.js';
import { heldRun } from '../runfile/results.js';
import { modelFolderPart, RUN_FILE } from '../runfile/files.js';
import {
  MAX_POINTS,
  planModels,
  readSweepPlan,
  removeSweepPlan,
  sweepFile,
  writeSweepPlan,
  type SweepPlan,
  type SweepPlanPoint,
} from '../runfile/sweep-file.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import { readRun } from '../report/read.js';
import { buildSweep, pointName, renderSweep, renderSweepCsv, type SweepResult } from '../report/sweep.js';
import { durationText } from '../report/provenance.js';
import { CompensatedSum } from '../summary/compensated-sum.js';
import type { EvalFlags } from '../settings/settings.js';
import { configPathFrom, loadConfigFile } from '../settings/config.js';
import { loadProviders } from '../settings/providers.js';
import { resumeCommand } from '../settings/resume-command.js';
import { unconfirmedPlanEndpoint, type EndpointFlags } from '../settings/resume-trust.js';
import type { EvalEvent, EvalResult } from '../engine/events.js';
import { runEval, type RunPlan } from '../engine/run-eval.js';
import { rolloutsLeft } from '../engine/session.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { checkOutputs } from '../settings/output-paths.js';
import { evalNotice, evalPlanFromFlags, outcomeError, renderEvalResult, withStopSignal } from './eval.js';
import * as std from '../io/std.js';

export type SweepFlags = Omit<EvalFlags, 'model'> & {
  /** One model per -m (commander collects them; a single string from older callers). */
  model?: string | string[];
  html?: string;
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
 * its resume sends no request. Each point's settings read for this go into `read`, for its run.
 * Anything unreadable is left for the run itself to report.
 */
async function everyPointFinished(
  dir: string,
  plan: SweepPlan,
  confirm: Record<string, string>,
  read: Map<string, RunPlan>,
): Promise<boolean> {
  try {
    for (const p of plan.points) {
      const sub = join(dir, p.folder);
      if (!existsSync(join(sub, RUN_FILE))) return false;
      const s = await evalPlanFromFlags([], { resume: sub, ...confirm }, { models: true });
      if ((await rolloutsLeft(sub, s.tasks.n, s.tasks.rollouts, s.tasks.shard)).pending > 0) return false;
      read.set(p.folder, s);
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
    if (!entry.isDirectory() || !/^([0-9a-z][0-9a-z._-]*--)?rows-[0-9a-z.-]+$/.test(entry.name)) return false;
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

/**
 * Folder names of the grid: `rows-12` (and `-fault-0.1`) as bas 0.3 named them when there is
 * one model, prefixed with the model (`builtin-oracle--rows-12`) when there are several; two
 * models whose names make the same prefix get `-2`, `-3` after it.
 */
function gridPoints(models: string[], rows: number[], rates: Array<number | null>): SweepPlanPoint[] {
  const prefixes = new Map<string, string>();
  const taken = new Set<string>();
  for (const m of models) {
    let p = slug(m);
    for (let k = 2; taken.has(p); k++) p = `${slug(m)}-${k}`;
    taken.add(p);
    prefixes.set(m, models.length > 1 ? `${p}--` : '');
  }
  return rows.flatMap((r) =>
    rates.flatMap((f) =>
      models.map((m) => ({
        model: m,
        num_transactions: r,
        fault_rate: f,
        folder: `${prefixes.get(m)}${f === null ? `rows-${r}` : `rows-${r}-fault-${f}`}`,
      })),
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
function reworded(err: unknown, message: (text: string) => string): unknown {
  if (!(err instanceof Error)) return err;
  const text = message(err.message.replace(/[.\s]+$/, ''));
  if (err instanceof ConfigError) return new ConfigError(text, { cause: err });
  if (err instanceof FatalRunError) return new FatalRunError(text, { cause: err });
  if (err instanceof ErrorRateError) return new ErrorRateError(text, { cause: err });
  if (err instanceof InterruptedError) return new InterruptedError(text, err.exitCode);
  return err;
}

/**
 * One line per point on stderr: on a terminal with progress on, redrawn in place as rollouts
 * finish (reward so far), then left as the point's final line; elsewhere only the final line.
 */
class PointLine {
  private done = 0;
  private errored = 0;
  private readonly rewardSum = new CompensatedSum();
  private total = 0;
  private last = 0;
  private readonly t0 = Date.now();
  private readonly live: boolean;

  constructor(
    private readonly label: string,
    live: boolean,
  ) {
    this.live = live && std.stderr().isTTY === true;
  }

  onEvent(e: EvalEvent): void {
    if (e.type === 'started') {
      this.total = e.total;
      this.done = e.already;
    } else if (e.type === 'rollout') {
      this.done++;
      if (e.record.error === null || e.record.error === undefined) this.rewardSum.add(e.record.reward ?? 0);
      else this.errored++;
      const now = Date.now();
      if (this.live && now - this.last >= 250) {
        this.last = now;
        const scored = this.done - this.errored;
        const so = scored > 0 ? `reward ${(this.rewardSum.value / scored).toFixed(3)} so far` : 'no reward yet';
        this.draw(
          `${this.done}/${this.total} rollouts, ${so}, ${this.errored} errored, ${durationText((now - this.t0) / 1000)}`,
        );
      }
    }
  }

  private draw(text: string): void {
    const width = Math.max(40, (std.stderr().columns ?? 100) - 1);
    std.stderr().write(`\r\x1b[K${terminalText(`${this.label}: ${text}`).slice(0, width)}`);
  }

  /** The final line (a newline ends a live one). */
  finish(text: string): void {
    const line = `${terminalText(`${this.label}: ${text}`)}, ${durationText((Date.now() - this.t0) / 1000)}`;
    std.stderr().write(this.live ? `\r\x1b[K${line}\n` : `${line}\n`);
  }
}

/** The final words of a point's line: n, reward with its interval, errors, and how it ended. */
function pointOutcome(r: EvalResult): string {
  const s = r.summary;
  const e = s.reward;
  const reward =
    e.mean === null
      ? 'no reward'
      : `reward ${e.mean.toFixed(3)}${e.ci95 ? ` [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]` : ''}`;
  const how: Record<string, string> = {
    ok: '',
    'nothing-to-do': ' (already done)',
    'over-error-budget': ' (over the error budget)',
    'nothing-completed': ' (nothing completed)',
    'endpoint-stopped': ' (stopped by the endpoint)',
    interrupted: ' (interrupted)',
  };
  return `n ${s.counts.completed}/${r.total}, ${reward}, ${s.counts.errored} errored${how[r.outcome.kind] ?? ''}`;
}

/** The eval flags of a fresh point: the plan's, its own model and place in the grid, and confirmed endpoint flags. */
function pointFlags(plan: SweepPlan, p: SweepPlanPoint, sub: string, confirm: Record<string, string>): EvalFlags {
  return {
    ...(plan.flags as EvalFlags),
    ...confirm,
    ...(p.model === undefined ? {} : { model: p.model }),
    numTransactions: String(p.num_transactions),
    ...(p.fault_rate === null ? {} : { faultRate: String(p.fault_rate) }),
    output: sub,
  };
}

export async function sweep(words: string[], flags: SweepFlags): Promise<void> {
  if ([flags.json, flags.csv].filter(Boolean).length > 1) throw new ConfigError('give --json or --csv, not both');
  let dir: string;
  let plan: SweepPlan;
  /** Endpoint flags given again on a resume: they go to every point. */
  const confirm: Record<string, string> = {};
  /** Settings already read, by point folder: each model's first point of a fresh sweep. */
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
    plan = readSweepPlan(dir);
    for (const k of ENDPOINT_FLAGS) {
      const v = flags[k as keyof SweepFlags];
      if (typeof v === 'string') confirm[k] = v;
    }
    // A finished sweep sends nothing (each point's resume has nothing to do), so re-printing
    // its table needs no endpoint confirmed.
    if (!(await everyPointFinished(dir, plan, confirm, read))) refuseUnconfirmedPlan(plan, confirm, sweepFile(dir));
  } else {
    const numTransactions = textFlag(flags.numTransactions);
    const faultRate = textFlag(flags.faultRate);
    const output = textFlag(flags.output);
    // sweep.json keeps the flags for --resume, and a file must never hold a secret.
    const baseUrl = textFlag(flags.baseUrl);
    if (baseUrl !== undefined && urlWithoutCredentials(baseUrl) !== baseUrl) {
      throw new ConfigError(
        '--base-url carries credentials (user:password@ or a key in its query), which sweep.json would keep for --resume: give the key through --api-key-var instead',
      );
    }
    if (!numTransactions)
      throw new ConfigError(
        'bas sweep needs --num-transactions with the points, e.g. --num-transactions 12,24,60,120,240',
      );
    const { numTransactions: rowsFlag, faultRate: ratesFlag } = COMMAND_FLAGS.sweep;
    const rows = rowsFlag.parse(numTransactions, '--num-transactions');
    const rates = faultRate === undefined ? [null] : ratesFlag.parse(faultRate, '--fault-rate');
    const models = sweepModels(flags.model, words, textFlag(flags.config));
    const count = rows.length * rates.length * models.length;
    if (count > MAX_POINTS)
      throw new ConfigError(
        `a sweep has at most ${MAX_POINTS} runs (models × rows × fault rates); these make ${count}`,
      );
    dir = output ?? defaultSweepDir(models);
    if (existsSync(dir) && readdirSync(dir).length > 0 && !(await onlyFailedStarts(dir))) {
      throw new ConfigError(
        `sweep folder ${dir} exists and is not empty: continue it with bas sweep --resume ${dir}, or give another --output`,
      );
    }
    const evalFlags = Object.fromEntries(
      Object.entries(flags).filter(([k, v]) => v !== undefined && !OWN.has(k)),
    ) as SweepPlan['flags'];
    plan = {
      kind: 'bas-sweep',
      created_at: new Date().toISOString(),
      model: models.length === 1 ? models[0]! : null,
      models,
      points: gridPoints(models, rows, rates),
      flags: evalFlags,
      words,
    };
    // Each model's settings are read as its runs will read them (an unknown built-in model,
    // a flag its settings refuse) before the plan is written or any run starts; its first
    // point runs with them, so the config file and the registry are read once for it.
    for (const m of models) {
      const first = plan.points.find((p) => (p.model ?? models[0]) === m)!;
      const flagsOf = pointFlags(plan, first, join(dir, first.folder), confirm);
      read.set(first.folder, await evalPlanFromFlags(words, flagsOf, { models: true }));
    }
  }
  // Every output is checked before the first point runs: the HTML page may not be written
  // into the sweep folder, which the sweep fills itself.
  checkOutputs([
    { flag: '--output', path: flags.resume ? null : dir, kind: 'folder' },
    {
      flag: '--html',
      path: flags.html,
      kind: 'file',
      inputs: [sweepFile(dir), ...plan.points.flatMap((p) => runInputs(join(dir, p.folder)))],
      owned: [dir],
    },
  ]);

  // A fresh sweep writes its plan first; if eval then refuses the first point's flags (say,
  // a bad --temperature) before anything ran, the plan is taken back, so the same command,
  // corrected, can use the same folder.
  const fresh = !flags.resume;
  if (fresh) await writeSweepPlan(dir, plan);

  const progress = flags.progress !== false;
  /** Points whose run ended over its error budget or with nothing completed: the sweep goes on, and exits 3. */
  const failed: Array<{ label: string; error: Error }> = [];
  /** Models whose endpoint --check has checked in this invocation. */
  const checked = new Set<string>();
  /** The settings of the last point run, for the resume command a stop prints. */
  let last: RunPlan | null = null;
  const sweepResume = (s: RunPlan): string =>
    resumeCommand(dir, s, std.env(), { providers: textFlag(plan.flags.providers) ?? null });
  await withStopSignal(async (signal) => {
    for (const [i, p] of plan.points.entries()) {
      const sub = join(dir, p.folder);
      // A fresh sweep starts every point anew (eval starts a failed start's folder again).
      const started = !fresh && existsSync(join(sub, RUN_FILE));
      const model = p.model ?? planModels(plan)[0] ?? '';
      const label = `bas: [${i + 1}/${plan.points.length}] ${plan.points.length > 1 && planModels(plan).length > 1 ? `${model}, ` : ''}${pointName(p)}${started ? ' (resumed)' : ''}`;
      let settings: RunPlan;
      let result: EvalResult;
      const line = new PointLine(label, progress);
      try {
        settings =
          read.get(p.folder) ??
          (await evalPlanFromFlags(
            started ? [] : plan.words,
            started ? { resume: sub, ...confirm } : pointFlags(plan, p, sub, confirm),
            { models: true },
          ));
        const s = settings;
        // --check: each model's endpoint is checked once, before its first run that has work.
        const check = s.settings.check && !checked.has(model);
        result = await runEval(settings, {
          signal,
          env: std.env(),
          preflight: check
            ? async () => {
                checked.add(model);
                await (await import('./check.js')).runCheck(s, std.env(), std.stderr());
              }
            : undefined,
          onEvent: (e) => {
            line.onEvent(e);
            // Notices of a resumed or restarted point are the sweep's own line's business;
            // warnings are always shown.
            const notice = evalNotice(e);
            if (notice !== null && (flags.verbose || e.type === 'warning')) std.stderr().write(notice);
          },
        });
      } catch (err) {
        line.finish('not run');
        throw await pointFailure(err, i, sub, p);
      }
      line.finish(pointOutcome(result));
      if (flags.verbose) std.stderr().write(renderEvalResult(result, settings, false));
      last = settings;
      const error = outcomeError(result, settings);
      if (error === null) continue;
      if (result.outcome.kind === 'over-error-budget' || result.outcome.kind === 'nothing-completed') {
        failed.push({ label: `${model} at ${pointName(p)}`, error });
        continue;
      }
      // A stop of the whole sweep: its own line, naming the run, with the sweep's resume
      // (eval's line would point at the run's folder).
      const where = `${planModels(plan).length > 1 ? `${model}, ` : ''}${pointName(p)}`;
      const { outcome } = result;
      if (outcome.kind === 'interrupted') {
        const reason = outcome.reason instanceof InterruptedError ? outcome.reason : null;
        throw new InterruptedError(
          `${reason?.message ?? 'interrupted'} at ${where}; finished rollouts are kept: continue the whole sweep with ${sweepResume(settings)}`,
          reason?.exitCode ?? 130,
        );
      }
      if (outcome.kind === 'endpoint-stopped' && !(fresh && i === 0 && outcome.restartable))
        throw new FatalRunError(
          `${asClause(outcome.failure.message)}; sweep stopped at ${where}: fix the cause and continue the whole sweep with ${sweepResume(settings)}`,
        );
      throw await pointFailure(
        outcome.kind === 'endpoint-stopped' ? new FatalRunError(outcome.failure.message) : error,
        i,
        sub,
        p,
      );
    }
  });

  async function pointFailure(err: unknown, i: number, sub: string, p: SweepPlanPoint): Promise<unknown> {
    if (fresh && i === 0 && (!existsSync(join(sub, RUN_FILE)) || (await heldRun(sub)) === 'failed-start')) {
      // Nothing was scored: the plan is taken back, and the point's folder is one eval can
      // start again, so the same sweep command, corrected, can use this folder.
      removeSweepPlan(dir);
      return reworded(
        err,
        (m) =>
          `${asClause(m)}. Nothing of the sweep was scored: run the same bas sweep command with the cause fixed, in the same --output ${dir}`,
      );
    }
    // Eval's message names the point's folder; the sweep is continued as a whole.
    return reworded(
      err,
      (m) =>
        `sweep stopped at ${p.model === undefined ? '' : `${p.model}, `}${pointName(p)}: ${asClause(m)}; continue the whole sweep with bas sweep --resume ${dir}`,
    );
  }

  const result = await sweepResult(dir, plan);
  if (flags.html) {
    const { sweepPage } = await import('../report/html/sweep-page.js');
    await withSink(fileSink(flags.html, '--html'), async (sink) => sink.write(sweepPage(result)));
  }
  std
    .stdout()
    .write(
      flags.json ? JSON.stringify(result, null, 2) + '\n' : flags.csv ? renderSweepCsv(result) : renderSweep(result),
    );
  if (flags.html) std.stderr().write(`bas: HTML sweep written to ${flags.html}\n`);
  if (failed.length > 0) {
    const first = failed[0]!;
    throw new ErrorRateError(
      `${failed.length} of ${plan.points.length} runs ended over their error budget or with nothing completed (first: ${first.label}: ${first.error.message.replace(/[.\s]+$/, '')}); ${last ? sweepResume(last) : `bas sweep --resume ${dir}`} re-runs their errored rollouts`,
    );
  }
}

/** Every point of a sweep folder, read back from its run folders. */
async function sweepResult(dir: string, plan: SweepPlan): Promise<SweepResult> {
  const models = planModels(plan);
  const points = [];
  for (const p of plan.points)
    points.push({
      num_transactions: p.num_transactions,
      fault_rate: p.fault_rate,
      model: p.model ?? (models.length === 1 ? models[0] : null),
      data: await readRun(join(dir, p.folder)),
    });
  return buildSweep(dir, points, models);
}
