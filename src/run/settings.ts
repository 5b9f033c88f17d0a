/**
 * The settings of one eval run, from flags over a config file over defaults (or, with
 * --resume, over the saved run). Every value is checked here, before any work starts, and a
 * bad one names where it came from (a flag or a config key), the value and the range.
 */
import { ConfigError } from '../errors.js';
import { parseCount, parseNumberInRange, resolveTaskConfig } from '../task/config.js';
import { isPolicyName, POLICY_NAMES } from '../task/policies.js';
import type { TaskConfig } from '../task/types.js';
import { builtinPolicy, type Sampling } from './client.js';
import type { FileConfig } from './config.js';
import { parseShard, shardLabel, type Shard } from '../runfile/shard.js';
import { canon } from '../io/canon.js';

/** The flags of `bas eval` as commander hands them over (strings, unchecked). */
export interface EvalFlags {
  model?: string;
  num?: string;
  rollouts?: string;
  concurrency?: string;
  numTransactions?: string;
  faultRate?: string;
  seed?: string;
  temperature?: string;
  maxTokens?: string;
  reasoningEffort?: string;
  sampling?: string;
  baseUrl?: string;
  apiKeyVar?: string;
  timeout?: string;
  requestTimeout?: string;
  maxRetries?: string;
  output?: string;
  resume?: string;
  config?: string;
  json?: boolean;
  progress?: boolean;
  shard?: string;
  priceIn?: string;
  priceOut?: string;
  maxErrorRate?: string; // pace:
  adapt?: boolean; // pace: false with --no-adapt
}

/** Everything a run needs, checked. */
export interface EvalSettings {
  model: string;
  n: number;
  rollouts: number;
  concurrency: number;
  task: TaskConfig;
  sampling: Sampling;
  baseURL: string;
  apiKeyVar: string;
  timeoutS: number;
  requestTimeoutS: number;
  maxRetries: number;
  output: string | null;
  progress: boolean;
  /** The slice of the task indices this process runs; null for all of them. */
  shard: Shard | null;
  /** USD per million tokens, recorded for `bas report`'s cost; null when not given. */
  prices: { in: number | null; out: number | null };
  /** pace: above this share of errored rollouts a finished run exits 3. */
  maxErrorRate: number;
  /** pace: adapt the requests in flight to rate limits (off with --no-adapt). */
  adapt: boolean;
}

/** What a saved run.json contributes on --resume (see store.ts for the whole file). */
export interface SavedSettings {
  model: string;
  n: number;
  rollouts: number;
  task: TaskConfig;
  sampling: Sampling;
  base_url?: string;
  api_key_var: string;
  concurrency: number;
  timeout_s: number;
  request_timeout_s: number;
  max_retries: number;
  shard: Shard | null;
  prices: { in: number | null; out: number | null };
}

export const DEFAULTS = { n: 10, rollouts: 1, concurrency: 8, timeout_s: 600, request_timeout_s: 300, max_retries: 5, max_error_rate: 0.1 }; // pace: max_error_rate
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
/** Request fields that --sampling may not set: the runner owns them. */
const RESERVED_FIELDS = ['model', 'messages', 'stream', 'n', 'tools', 'tool_choice'];

/** A value and the words naming where it came from. */
type Picked = { value: unknown; name: string } | undefined;

function picker(flags: EvalFlags, file: FileConfig | null, fileName: string) {
  return (flag: keyof EvalFlags, flagName: string, fileValue: unknown, fileKey: string): Picked => {
    if (flags[flag] !== undefined) return { value: flags[flag], name: flagName };
    if (fileValue !== undefined && file) return { value: fileValue, name: `"${fileKey}" in ${fileName}` };
    return undefined;
  };
}

function parseSeconds(p: Picked, fallback: number): number {
  return p ? parseNumberInRange(p.value, p.name, 0.001, 86_400) : fallback;
}

function parseModel(p: Picked): string | undefined {
  if (!p) return undefined;
  const model = String(p.value).trim();
  if (model === '') throw new ConfigError(`${p.name} must name a model, got an empty string`);
  const policy = builtinPolicy(model);
  if (policy !== null && !isPolicyName(policy)) {
    throw new ConfigError(`${p.name}: unknown built-in model ${JSON.stringify(model)} (choose builtin:${POLICY_NAMES.join(', builtin:')})`);
  }
  return model;
}

function parseBaseURL(p: Picked): string | undefined {
  if (!p) return undefined;
  const text = String(p.value).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${p.name} must be an http(s) URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${p.name} must be an http(s) URL, got ${JSON.stringify(text)}`);
  }
  return text.replace(/\/+$/, '');
}

function parseExtra(p: Picked): Record<string, unknown> | undefined {
  if (!p) return undefined;
  let value = p.value;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new ConfigError(`${p.name} must be a JSON object such as '{"top_p": 0.9}', got ${JSON.stringify(p.value)}`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${p.name} must be a JSON object of extra request fields, got ${JSON.stringify(p.value)}`);
  }
  const bad = Object.keys(value).find((k) => RESERVED_FIELDS.includes(k));
  if (bad) throw new ConfigError(`${p.name} may not set "${bad}": bas sets it itself`);
  return value as Record<string, unknown>;
}

function parseEffort(p: Picked): string | undefined {
  if (!p) return undefined;
  const v = String(p.value).trim();
  if (!(REASONING_EFFORTS as readonly string[]).includes(v)) {
    throw new ConfigError(`${p.name} must be one of ${REASONING_EFFORTS.join(', ')}, got ${JSON.stringify(p.value)}`);
  }
  return v;
}

function parseVarName(p: Picked): string | undefined {
  if (!p) return undefined;
  const v = String(p.value);
  // The value is never echoed: a common slip is to pass the key itself here.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) {
    throw new ConfigError(`${p.name} must be the NAME of an environment variable (letters, digits, _), not its value`);
  }
  if (v.length > 64) throw new ConfigError(`${p.name} is ${v.length} characters long: give the NAME of the variable holding the key, not the key`);
  return v;
}

/**
 * Resolves and checks the settings. With `saved` (a resumed run), the saved values are the
 * base, and a flag that would change what the run measures (model, tasks, rollouts,
 * sampling) is refused; operational ones (concurrency, timeouts, retries, URL, key
 * variable) may change.
 */
export function resolveSettings(
  flags: EvalFlags,
  file: FileConfig | null,
  fileName: string,
  env: NodeJS.ProcessEnv,
  saved: SavedSettings | null = null,
): EvalSettings {
  const pick = picker(flags, file, fileName);
  const t = file?.task ?? {};
  const s = file?.sampling ?? {};
  const model = parseModel(pick('model', '-m/--model', file?.model, 'model'));
  const nP = pick('num', '-n', file?.n, 'n');
  const rP = pick('rollouts', '-r/--rollouts', file?.rollouts, 'rollouts');
  const n = nP ? parseCount(nP.value, nP.name, 1, 10_000_000) : undefined;
  const rollouts = rP ? parseCount(rP.value, rP.name, 1, 1000) : undefined;
  const taskPicks = {
    num_transactions: pick('numTransactions', '--num-transactions', t.num_transactions, 'task.num_transactions'),
    fault_rate: pick('faultRate', '--fault-rate', t.fault_rate, 'task.fault_rate'),
    seed: pick('seed', '--seed', t.seed, 'task.seed'),
  };
  const base: Partial<TaskConfig> = saved?.task ?? {};
  const task = resolveTaskConfig(
    {
      num_transactions: taskPicks.num_transactions?.value ?? base.num_transactions,
      fault_rate: taskPicks.fault_rate?.value ?? base.fault_rate,
      seed: taskPicks.seed?.value ?? base.seed,
    },
    { num_transactions: taskPicks.num_transactions?.name, fault_rate: taskPicks.fault_rate?.name, seed: taskPicks.seed?.name },
  );
  const tempP = pick('temperature', '--temperature', s.temperature, 'sampling.temperature');
  const maxP = pick('maxTokens', '--max-tokens', s.max_tokens, 'sampling.max_tokens');
  const sampling: Partial<Sampling> = {
    temperature: tempP ? parseNumberInRange(tempP.value, tempP.name, 0, 2) : undefined,
    max_tokens: maxP ? parseCount(maxP.value, maxP.name, 1, 10_000_000) : undefined,
    reasoning_effort: parseEffort(pick('reasoningEffort', '--reasoning-effort', s.reasoning_effort, 'sampling.reasoning_effort')),
    extra: parseExtra(pick('sampling', '--sampling', s.extra, 'sampling.extra')),
  };
  const cP = pick('concurrency', '-c/--concurrency', file?.concurrency, 'concurrency');
  const mrP = pick('maxRetries', '--max-retries', file?.max_retries, 'max_retries');
  const shardP = pick('shard', '--shard', file?.shard, 'shard');
  const priceInP = pick('priceIn', '--price-in', file?.price_in, 'price_in');
  const priceOutP = pick('priceOut', '--price-out', file?.price_out, 'price_out');
  const settings: EvalSettings = {
    model: model ?? saved?.model ?? '',
    n: n ?? saved?.n ?? DEFAULTS.n,
    rollouts: rollouts ?? saved?.rollouts ?? DEFAULTS.rollouts,
    concurrency: cP ? parseCount(cP.value, cP.name, 1, 4096) : (saved?.concurrency ?? DEFAULTS.concurrency),
    task,
    sampling: {
      temperature: sampling.temperature ?? saved?.sampling.temperature ?? null,
      max_tokens: sampling.max_tokens ?? saved?.sampling.max_tokens ?? null,
      reasoning_effort: sampling.reasoning_effort ?? saved?.sampling.reasoning_effort ?? null,
      extra: sampling.extra ?? saved?.sampling.extra ?? {},
    },
    baseURL:
      parseBaseURL(pick('baseUrl', '--base-url', file?.base_url, 'base_url')) ??
      saved?.base_url ??
      parseBaseURL(env.OPENAI_BASE_URL ? { value: env.OPENAI_BASE_URL, name: 'OPENAI_BASE_URL' } : undefined) ??
      OPENAI_DEFAULT_BASE_URL,
    apiKeyVar: parseVarName(pick('apiKeyVar', '--api-key-var', file?.api_key_var, 'api_key_var')) ?? saved?.api_key_var ?? 'OPENAI_API_KEY',
    timeoutS: parseSeconds(pick('timeout', '--timeout', file?.timeout, 'timeout'), saved?.timeout_s ?? DEFAULTS.timeout_s),
    requestTimeoutS: parseSeconds(
      pick('requestTimeout', '--request-timeout', file?.request_timeout, 'request_timeout'),
      saved?.request_timeout_s ?? DEFAULTS.request_timeout_s,
    ),
    maxRetries: mrP ? parseCount(mrP.value, mrP.name, 0, 100) : (saved?.max_retries ?? DEFAULTS.max_retries),
    output: (flags.output ?? file?.output ?? null) || null,
    progress: flags.progress === false ? false : (file?.progress ?? true),
    shard: shardP ? parseShard(shardP.value, shardP.name) : (saved?.shard ?? null),
    prices: {
      in: priceInP ? parseNumberInRange(priceInP.value, priceInP.name, 0, 1e6) : (saved?.prices.in ?? null),
      out: priceOutP ? parseNumberInRange(priceOutP.value, priceOutP.name, 0, 1e6) : (saved?.prices.out ?? null),
    },
    maxErrorRate: flags.maxErrorRate === undefined ? DEFAULTS.max_error_rate : parseNumberInRange(flags.maxErrorRate, '--max-error-rate', 0, 1), // pace:
    adapt: flags.adapt !== false, // pace:
  };
  if (settings.model === '') {
    throw new ConfigError('-m/--model is required: a model id such as openai/gpt-5-mini, or builtin:oracle (no key, no network)');
  }
  if (saved) refuseChanges(settings, saved, { model, n, rollouts, taskPicks, sampling, shard: shardP !== undefined });
  return settings;
}

function refuseChanges(
  now: EvalSettings,
  saved: SavedSettings,
  given: { model?: string; n?: number; rollouts?: number; taskPicks: Record<string, Picked>; sampling: Partial<Sampling>; shard: boolean },
): void {
  const clash = (what: string, mine: unknown, theirs: unknown): void => {
    if (canon(mine) !== canon(theirs)) {
      throw new ConfigError(
        `--resume: ${what} ${canon(mine)} differs from the saved run's ${canon(theirs)}; a resumed run keeps its configuration (start a new run with --output to change it)`,
      );
    }
  };
  if (given.model !== undefined) clash('-m/--model', now.model, saved.model);
  if (given.n !== undefined) clash('-n', now.n, saved.n);
  if (given.rollouts !== undefined) clash('-r/--rollouts', now.rollouts, saved.rollouts);
  if (given.shard) clash('--shard', now.shard && shardLabel(now.shard), saved.shard && shardLabel(saved.shard));
  for (const [key, p] of Object.entries(given.taskPicks)) {
    if (p) clash(p.name, now.task[key as keyof TaskConfig], saved.task[key as keyof TaskConfig]);
  }
  for (const key of ['temperature', 'max_tokens', 'reasoning_effort', 'extra'] as const) {
    if (given.sampling[key] !== undefined) clash(`sampling ${key}`, now.sampling[key], saved.sampling[key]);
  }
}
