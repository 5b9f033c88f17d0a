/**
 * The plan of one eval, from what its caller holds: `bas eval`'s flags over a config file, or
 * the public API's configuration; over the saved run with a resume, with the run `--against`
 * names. Each run.json is read here, once, and handed to the plan (the engine reads neither).
 */
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { configPathFrom, loadConfigFile, type FileConfig } from '../settings/config.js';
import type { RunPlan } from '../engine/run-eval.js';
import { againstOf, type EvalFlags } from '../settings/settings.js';
import { resolvePlan } from '../settings/plan.js';
import { readBaselineRun, readSavedRun } from '../runfile/run-info.js';
import { RUN_FILE } from '../runfile/files.js';
import * as std from '../io/std.js';

/** The plan `bas eval` runs: flags over a config file, over the saved run with --resume. */
export async function evalPlanFromFlags(
  words: string[],
  flags: EvalFlags,
  opts: { models?: boolean } = {},
): Promise<RunPlan> {
  const configPath = configPathFrom(words, flags.config, opts.models ? 'bas sweep' : 'bas eval');
  // A sweep's config may list its `models` (`opts.models`); each of its runs gets its own -m.
  const file: FileConfig | null = configPath ? loadConfigFile(configPath, { models: opts.models }) : null;
  if (flags.resume && flags.output)
    throw new ConfigError('--resume DIR continues the run in DIR; it does not take --output');
  return planWithRuns(flags, file, configPath ?? '', std.env(), flags.resume ? flags.resume : undefined);
}

/**
 * The plan of `flags` over `file`, over the saved run in `resumeDir` if given, with the run
 * `--against` names: each run.json read here, once, and handed in (the engine reads neither).
 */
export async function planWithRuns(
  flags: EvalFlags,
  file: FileConfig | null,
  fileName: string,
  env: NodeJS.ProcessEnv,
  resumeDir: string | undefined,
): Promise<RunPlan> {
  const resume =
    resumeDir === undefined
      ? null
      : { dir: resumeDir, run: await readSavedRun(resumeDir), file: join(resumeDir, RUN_FILE) };
  const against = againstOf(flags, file, fileName, resume?.run);
  const baseline = against === null ? null : await readBaselineRun(against);
  return resolvePlan(flags, file, fileName, env, resume, baseline);
}
