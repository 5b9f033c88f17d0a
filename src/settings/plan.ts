/**
 * The plan of one eval: the resolved settings turned, once, into what the layers below need.
 * What to run (the tasks), against what (a built-in policy, or an HTTP endpoint with its URL,
 * key variable and request settings), the limits, the folder, and the lines run.json keeps. The
 * engine, the sweep and `bas check` read the plan; none of them calls back into the settings.
 *
 * A resume's saved run.json is data here: the caller reads it and hands it in, and the plan
 * carries it on, so the engine does not read it again. Its type is the caller's (`RunInfo` of
 * src/runfile, which this layer sits below).
 */
import { isPolicyName, type PolicyName } from '../task/policies.js';
import type { TaskConfig } from '../task/types.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import type { FileConfig } from './config.js';
import type { Shard } from './shard.js';
import { builtinName } from './setting-parse.js';
import { maxResponseBytesOf, pricesOf, samplingOf, taskConfigOf, type Sampling } from './setting-table.js';
import {
  baselineTasks,
  resolveSettings,
  settingsForRunJson,
  type Baseline,
  type SavedSettings,
  type EvalFlags,
  type EvalSettings,
} from './settings.js';

/** A built-in policy: answers in-process, no key, no network. */
export interface BuiltinTarget {
  kind: 'builtin';
  policy: PolicyName;
}

/** A model behind an OpenAI-compatible endpoint, with what every request to it takes. */
export interface EndpointTarget {
  kind: 'endpoint';
  model: string;
  /** Credentials in the URL included: the requests need them; run.json gets `record.base_url`. */
  baseURL: string;
  /** The provider it was named through, or null. */
  provider: string | null;
  /** The environment variable the key is read from when the run starts (the key is never kept). */
  apiKeyVar: string;
  /** False for a local provider's server: an unset key variable sends a placeholder. */
  keyRequired: boolean;
  sampling: Sampling;
  requestTimeoutMs: number;
  maxResponseBytes: number;
  /** Ask for replies as event streams, with this idle bound between events; null: one body. */
  stream: { idleTimeoutMs: number } | null;
  /** The response cache's folder (`--cache`), or null for none. */
  cache: string | null;
  /**
   * On a resume whose endpoint or key variable came from run.json alone, named by nothing the
   * user controls now: why it must be refused before any request (resume-trust.ts), else null.
   */
  unconfirmed: string | null;
}

/** The tasks of a run: the generator's configuration and which (task, rollout) pairs. */
interface TaskPlan {
  config: TaskConfig;
  n: number;
  rollouts: number;
  shard: Shard | null;
}

/** How a run is bounded. */
interface RunLimits {
  concurrency: number;
  maxRetries: number;
  episodeTimeoutMs: number;
  requestTimeoutMs: number;
  /** Lower the requests in flight under rate limits (`--no-adapt` turns it off). */
  adapt: boolean;
  maxErrorRate: number;
  /** `--max-cost` (US dollars, at `prices`) and `--max-total-tokens`; null when neither is set. */
  budget: { maxCostUsd: number | null; maxTotalTokens: number | null } | null;
  /** Stop once the anytime-valid interval of the mean reward is within ±this (`--precision`), or null. */
  precision: number | null;
  /**
   * `--against RUN --until decided`: the run compared with, task by task, `--margin`, and RUN's
   * tasks and rollouts per task (its run.json, read once by the caller); or null.
   */
  /** `--against RUN`: its folder, the margin, its tasks, and its run.json as read (what a hint to finish it names). */
  against: { dir: string; margin: number; run: { n: number; rollouts: number }; saved: SavedSettings } | null;
}

/**
 * The settings a run's run.json keeps, at their run.json keys: every declared setting's
 * `runJson` path (setting-table.ts, where a new setting is added in one edit), with the endpoint
 * as run.json names it (`base_url` without credentials, null for a built-in model). The fields
 * named here are those the layers above read; tests/settings/run-json-settings.test.ts holds
 * them to the table.
 */
export interface RunJsonSettings {
  model: string;
  n: number;
  rollouts: number;
  concurrency: number;
  task: TaskConfig;
  sampling: Sampling;
  provider: string | null;
  base_url: string | null;
  api_key_var: string;
  timeout_s: number;
  request_timeout_s: number;
  max_retries: number;
  shard: Shard | null;
  prices: { in: number | null; out: number | null };
  [other: string]: unknown;
}

/** A run to continue: its folder, its run.json as the caller read it, and how messages name that file. */
export interface SavedRun<R> {
  dir: string;
  run: R;
  file: string;
}

/** Everything one eval needs, resolved once. `R` is the type of a resumed run's run.json. */
export interface EvalPlan<R = unknown> {
  model: string;
  target: BuiltinTarget | EndpointTarget;
  tasks: TaskPlan;
  limits: RunLimits;
  /** The folder a new run writes (`--output`), or null for one named after the time and model. */
  output: string | null;
  /** The run to continue, or null for a new run. */
  resume: SavedRun<R> | null;
  /** run.json's settings: every declared setting at its run.json key, with the endpoint (no credentials). */
  record: RunJsonSettings;
  /** USD per million tokens, for the cost of a summary. */
  prices: { in: number | null; out: number | null };
  /** The settings themselves, for the front end's own choices (progress, --check) and words. */
  settings: EvalSettings;
}

/**
 * Resolves flags over a config file (over the saved run on a resume, whose measured settings
 * a flag may not change) into the run's plan; every check is resolveSettings'. `baseline`:
 * the run.json of the run `--against` names, read by the caller; a caller that runs nothing
 * (`bas check`) may leave it out, and its plan then has no rule against it.
 */
export function resolvePlan<R extends object>(
  flags: EvalFlags,
  file: FileConfig | null,
  fileName: string,
  env: NodeJS.ProcessEnv,
  resume: SavedRun<R> | null = null,
  baseline: Baseline | null = null,
): EvalPlan<R> {
  const settings = resume
    ? resolveSettings(flags, file, fileName, env, resume.run as Record<string, unknown>, resume.file, baseline)
    : resolveSettings(flags, file, fileName, env, null, undefined, baseline);
  return planOf(settings, resume, baseline);
}

/** What a run's model is: a built-in policy, or a model behind an endpoint with its request settings. */
export function targetOf(s: EvalSettings): BuiltinTarget | EndpointTarget {
  const name = builtinName(s.model);
  if (name !== null && isPolicyName(name)) return { kind: 'builtin', policy: name };
  return {
    kind: 'endpoint',
    model: s.model,
    baseURL: s.baseUrl,
    provider: s.provider,
    apiKeyVar: s.apiKeyVar,
    keyRequired: s.keyRequired,
    sampling: samplingOf(s),
    requestTimeoutMs: s.requestTimeout * 1000,
    maxResponseBytes: maxResponseBytesOf(s),
    stream: s.stream ? { idleTimeoutMs: s.streamIdleTimeout * 1000 } : null,
    cache: s.cache,
    unconfirmed: s.unconfirmed,
  };
}

/** Which tasks a run holds. */
function tasksOf(s: EvalSettings): TaskPlan {
  return { config: taskConfigOf(s), n: s.num, rollouts: s.rollouts, shard: s.shard };
}

/** The plan of settings already resolved (and checked): here they only change shape. */
export function planOf<R>(
  s: EvalSettings,
  resume: SavedRun<R> | null = null,
  baseline: Baseline | null = null,
): EvalPlan<R> {
  const target = targetOf(s);
  const endpoint = target.kind === 'endpoint';
  return {
    model: s.model,
    target,
    tasks: tasksOf(s),
    limits: {
      concurrency: s.concurrency,
      maxRetries: s.maxRetries,
      episodeTimeoutMs: s.timeout * 1000,
      requestTimeoutMs: s.requestTimeout * 1000,
      adapt: s.adapt,
      maxErrorRate: s.maxErrorRate,
      budget:
        s.maxCost === null && s.maxTotalTokens === null
          ? null
          : { maxCostUsd: s.maxCost, maxTotalTokens: s.maxTotalTokens },
      precision: s.precision,
      against:
        s.against === null || baseline === null
          ? null
          : { dir: s.against, margin: s.margin, run: baselineTasks(baseline), saved: baseline.run },
    },
    output: s.output,
    resume,
    record: {
      // The table's run.json paths build this object; the interface above names what they build.
      ...(settingsForRunJson(s) as RunJsonSettings),
      base_url: endpoint ? urlWithoutCredentials(s.baseUrl) : null,
      provider: endpoint ? s.provider : null,
    },
    prices: pricesOf(s),
    settings: s,
  };
}
