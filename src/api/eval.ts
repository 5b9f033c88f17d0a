/**
 * One eval from a program: `runEval(config, options)` checks a TOML run configuration, plans it
 * (eval-plan.ts, as `bas eval` plans its flags) and runs the plan (`runPlan`, src/engine).
 */
import type { EvalResult } from '../engine/events.js';
import { runPlan, type RunPlanOptions } from '../engine/run-eval.js';
import * as std from '../io/std.js';
import { API_SOURCE, checkEvalConfig, type EvalConfig } from '../settings/eval-config.js';
import { planWithRuns } from './eval-plan.js';

/**
 * How `runEval` runs: `resume`, and the engine's own options (`signal`, `onEvent`, `env`,
 * `preflight`: how to stop it, who hears its events, where the key is read, what to check first).
 */
export interface RunEvalOptions extends RunPlanOptions {
  /**
   * The folder of a run to continue: its rollouts never recorded, or whose last record is an
   * error, run again, with its saved settings under those of `config` (which may change how it
   * runs, never what it measures).
   */
  resume?: string;
}

/**
 * Runs one eval, or with `resume` continues one, and resolves once run.json is final and the
 * folder is released. `config` takes the keys of a TOML run configuration, checked as a config
 * file is. Bad settings or folders reject with a ConfigError, a failing disk with a
 * FatalRunError; how the run itself went is the result's `outcome`.
 */
export async function runEval(config: EvalConfig = {}, options: RunEvalOptions = {}): Promise<EvalResult> {
  const { resume, ...run } = options;
  const env = run.env ?? std.env();
  const plan = await planWithRuns({}, checkEvalConfig(config), API_SOURCE, env, resume);
  return runPlan(plan, { ...run, env });
}
