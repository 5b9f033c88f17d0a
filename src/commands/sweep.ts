/**
 * `bas sweep`: the difficulty curve in one command. Runs one `bas eval` per point of
 * --num-transactions (× --fault-rate when given) into sub-folders of one sweep folder, each
 * through the engine's runEval as `bas eval` runs it, then prints (and draws) reward, `bas_correct` and
 * `fault_audit` against the rows with 95% intervals.
 *
 * The sweep folder holds sweep.json (the points and the eval flags, never a key: flags name
 * the key's variable, not the key) and one run folder per point, so `bas leaderboard`,
 * `bas report` and `bas compare` read it as they read any run. `--resume SWEEP_DIR` continues
 * every point: unfinished and errored rollouts are run again (eval's own resume), points not
 * yet started are started.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ErrorRateError, FatalRunError, InterruptedError } from '../errors.js';
import { fileSink, refuseOutputOverInput, withSink } from '../io/output.js';
import { runInputs } from '../runfile/read.js';
import { heldRun } from '../runfile/results.js';
import { RUN_FILE } from '../runfile/files.js';
import {
  MAX_POINTS,
  readSweepPlan,
  removeSweepPlan,
  sweepFile,
  writeSweepPlan,
  type SweepPlan,
} from '../runfile/sweep-file.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import { readRun } from '../report/read.js';
import { buildSweep, renderSweep } from '../report/sweep.js';
import type { EvalFlags } from '../settings/settings.js';
import { configPathFrom, loadConfigFile } from '../settings/config.js';
import { loadProviders } from '../settings/providers.js';
import { unconfirmedPlanEndpoint, type EndpointFlags } from '../settings/resume-trust.js';
import { evalSettingsFromFlags, reportEval, runEvalCommand } from './eval.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { checkOutputs } from '../settings/output-paths.js';

/**
 * Whether a folder holds only point folders whose run failed before scoring anything (a
 * sweep stopped at its first point by a refused key or a wrong URL): such a sweep folder may
 * be started again from scratch, as eval starts such a run folder again.
 */
async function onlyFailedStarts(dir: string): Promise<boolean> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !/^rows-[0-9a-z.-]+$/.test(entry.name)) return false;
    if ((await heldRun(join(dir, entry.name))) !== 'failed-start') return false;
  }
  return true;
}

export type SweepFlags = EvalFlags & {
  html?: string;
};

/** A flag that takes a value, as text (commander gives `true` for a value-less boolean form). */
function textFlag(v: string | boolean | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

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
  const config = configPath ? loadConfigFile(configPath) : null;
  const registry = loadProviders(confirm.providers ?? null, process.env);
  const why = unconfirmedPlanEndpoint(flags, config, confirm, registry, process.env, planFile);
  if (why !== null) throw new ConfigError(why);
}

/** Flags a sweep does not pass to eval: its own, or ones it sets per point. */
const OWN = new Set(['numTransactions', 'faultRate', 'output', 'resume', 'json', 'html', 'progress', 'shard']);

function folderName(rows: number, rate: number | null): string {
  return rate === null ? `rows-${rows}` : `rows-${rows}-fault-${rate}`;
}

function defaultSweepDir(model: string | undefined): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const safe = (model ?? 'model').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
  return join('runs', `${stamp}-sweep-${safe}`);
}

/**
 * The same error with another message: a point's failure keeps its kind (and so its exit
 * code) when the sweep says which point it was and how to go on. An error of no known kind
 * (a bug) is left as it is.
 */
function reworded(err: unknown, message: (text: string) => string): unknown {
  if (!(err instanceof Error)) return err;
  const text = message(err.message);
  if (err instanceof ConfigError) return new ConfigError(text, { cause: err });
  if (err instanceof FatalRunError) return new FatalRunError(text, { cause: err });
  if (err instanceof ErrorRateError) return new ErrorRateError(text, { cause: err });
  if (err instanceof InterruptedError) return new InterruptedError(text, err.exitCode);
  return err;
}

export async function sweep(words: string[], flags: SweepFlags): Promise<void> {
  let dir: string;
  let plan: SweepPlan;
  /** Endpoint flags given again on a resume: they go to every point. */
  const confirm: Record<string, string> = {};
  if (flags.resume) {
    // `adapt: true` is commander's default for `--no-adapt`, not something the user said.
    const extra = Object.entries(flags).filter(
      ([k, v]) => v !== undefined && !OWN.has(k) && !ENDPOINT_FLAGS.has(k) && !(k === 'adapt' && v === true),
    );
    if (extra.length || words.length || flags.numTransactions || flags.faultRate || flags.output) {
      throw new ConfigError(
        '--resume continues a sweep with its saved points and settings; it takes only --json, --html, --no-progress and, to confirm its endpoint, --base-url, --api-key-var, --provider and --providers',
      );
    }
    dir = flags.resume;
    plan = readSweepPlan(dir);
    for (const k of ENDPOINT_FLAGS)
      if (typeof flags[k as keyof SweepFlags] === 'string') confirm[k] = flags[k as keyof SweepFlags] as string;
    refuseUnconfirmedPlan(plan, confirm, sweepFile(dir));
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
    if (rows.length * rates.length > MAX_POINTS)
      throw new ConfigError(`a sweep has at most ${MAX_POINTS} points; these lists make ${rows.length * rates.length}`);
    dir = output ?? defaultSweepDir(textFlag(flags.model));
    if (existsSync(dir) && readdirSync(dir).length > 0 && !(await onlyFailedStarts(dir))) {
      throw new ConfigError(
        `sweep folder ${dir} exists and is not empty: continue it with bas sweep --resume ${dir}, or give another --output`,
      );
    }
    const evalFlags = Object.fromEntries(
      Object.entries(flags).filter(([k, v]) => v !== undefined && !OWN.has(k)),
    ) as EvalFlags;
    plan = {
      kind: 'bas-sweep',
      created_at: new Date().toISOString(),
      model: textFlag(flags.model) ?? null,
      points: rows.flatMap((r) => rates.map((f) => ({ num_transactions: r, fault_rate: f, folder: folderName(r, f) }))),
      flags: evalFlags,
      words,
    };
  }

  // A fresh sweep writes its plan first; if eval then refuses the first point's flags (say,
  // a bad --temperature) before anything ran, the plan is taken back, so the same command,
  // corrected, can use the same folder.
  const fresh = !flags.resume;
  // Every output is checked before the first point runs: the HTML page may not be written
  // into the sweep folder, which the sweep fills itself.
  checkOutputs([
    { flag: '--output', path: fresh ? dir : null, kind: 'folder' },
    {
      flag: '--html',
      path: flags.html,
      kind: 'file',
      inputs: [sweepFile(dir), ...plan.points.flatMap((p) => runInputs(join(dir, p.folder)))],
      owned: [dir],
    },
  ]);
  if (fresh) await writeSweepPlan(dir, plan);

  for (const [i, p] of plan.points.entries()) {
    const sub = join(dir, p.folder);
    // A fresh sweep starts every point anew (eval starts a failed start's folder again).
    const started = !fresh && existsSync(join(sub, RUN_FILE));
    process.stderr.write(
      `bas: sweep point ${i + 1} of ${plan.points.length}: ${p.num_transactions} rows${p.fault_rate === null ? '' : `, fault rate ${p.fault_rate}`}${started ? ' (resumed)' : ''}\n`,
    );
    try {
      const settings = await evalSettingsFromFlags(
        started ? [] : plan.words,
        started
          ? { resume: sub, progress: flags.progress, ...confirm }
          : {
              ...plan.flags,
              ...confirm,
              numTransactions: String(p.num_transactions),
              ...(p.fault_rate === null ? {} : { faultRate: String(p.fault_rate) }),
              output: sub,
              progress: flags.progress,
            },
      );
      const result = await runEvalCommand(settings, { dir: sub, resume: started }, process.stderr);
      // A point's tables go to standard error, as progress: standard output carries only the
      // sweep's own result (which --json needs).
      reportEval(result, settings, process.stderr, false);
    } catch (err) {
      if (fresh && i === 0 && (!existsSync(join(sub, RUN_FILE)) || (await heldRun(sub)) === 'failed-start')) {
        // Nothing was scored: the plan is taken back, and the point's folder is one eval can
        // start again, so the same sweep command, corrected, can use this folder.
        removeSweepPlan(dir);
        throw reworded(
          err,
          (m) =>
            `${m}. Nothing of the sweep was scored: run the same bas sweep command with the cause fixed, in the same --output ${dir}`,
        );
      }
      // Eval's message names the point's folder; the sweep is continued as a whole.
      throw reworded(
        err,
        (m) =>
          `sweep stopped at ${p.num_transactions} rows: ${m}; continue the whole sweep with bas sweep --resume ${dir}`,
      );
    }
  }

  const points = [];
  for (const p of plan.points)
    points.push({
      num_transactions: p.num_transactions,
      fault_rate: p.fault_rate,
      data: await readRun(join(dir, p.folder)),
    });
  const result = buildSweep(dir, plan.model ?? points[0]?.data.model ?? '(unknown model)', points);
  if (flags.html) {
    refuseOutputOverInput(flags.html, '--html', [
      sweepFile(dir),
      ...plan.points.flatMap((p) => runInputs(join(dir, p.folder))),
    ]);
    const { sweepPage } = await import('../report/html/sweep-page.js');
    await withSink(fileSink(flags.html, '--html'), async (sink) => sink.write(sweepPage(result)));
  }
  process.stdout.write(flags.json ? JSON.stringify(result, null, 2) + '\n' : renderSweep(result));
  if (flags.html && !flags.json) process.stdout.write(`HTML sweep written to ${flags.html}\n`);
}
