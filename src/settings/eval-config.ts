/**
 * The settings of a run for a program that calls bas (the public `evalSettings`): the keys of
 * a TOML run configuration, as a plain object, checked exactly as a config file is (the same
 * declaration, ranges and messages), with the same defaults, endpoint and provider rules.
 */
import { join } from 'node:path';
import { readSavedRun } from '../runfile/run-info.js';
import { RUN_FILE } from '../runfile/files.js';
import { checkConfig } from './config.js';
import { resolveSettings, type EvalSettings } from './settings.js';

/**
 * A run's settings by their TOML keys (see eval's table in docs/flags.md; `task` and `sampling`
 * are sections). Only `model` is required, except on a resume, which takes the saved run's.
 */
export interface EvalConfig {
  /** A model id, or `builtin:oracle` (also `raw-sums`, `blanket`, `silent`): no key, no network. */
  model?: string;
  /** Tasks 0..n-1. */
  n?: number;
  rollouts?: number;
  concurrency?: number;
  task?: { num_transactions?: number; fault_rate?: number; seed?: number };
  sampling?: {
    temperature?: number;
    max_tokens?: number;
    reasoning_effort?: string;
    /** Extra request fields, sent as they are. */
    extra?: Record<string, unknown>;
  };
  provider?: string;
  /** A provider registry file (TOML) beside the shipped one. */
  providers?: string;
  base_url?: string;
  /** The environment variable the API key is read from (the key itself is never given here). */
  api_key_var?: string;
  /** Seconds per rollout, retries included. */
  timeout?: number;
  /** Seconds per request. */
  request_timeout?: number;
  /** Ask for the reply as server-sent events. */
  stream?: boolean;
  /** Seconds a stream may stay silent once its first token came. */
  stream_idle_timeout?: number;
  max_retries?: number;
  max_error_rate?: number;
  max_response_mb?: number;
  adapt?: boolean;
  /** The run folder (`runEval`'s `dir` wins). */
  output?: string;
  /** `I/N`: run only the I-th of N slices of the tasks. */
  shard?: string;
  price_in?: number;
  price_out?: number;
}

/** The object without its undefined values (at the top and in sections): a key left undefined is a key not given. */
function given(o: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'object' && v !== null && !Array.isArray(v) && k !== 'extra' ? given(v) : v;
  }
  return out;
}

/** How `evalSettings()` names itself in an error: `"n" in evalSettings() must be …`. */
const SOURCE = 'evalSettings()';

/**
 * Checks `config` and fills in the defaults. With `resume` (a run folder), the saved run's
 * settings are the base, and a setting that would change what the run measures is refused.
 * Rejects with a ConfigError naming the key and the allowed range.
 */
export async function evalSettings(
  config: EvalConfig = {},
  options: { resume?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<EvalSettings> {
  const file = checkConfig(given(config), SOURCE);
  const saved = options.resume ? await readSavedRun(options.resume) : null;
  return resolveSettings(
    {},
    file,
    SOURCE,
    options.env ?? process.env,
    saved,
    options.resume ? join(options.resume, RUN_FILE) : undefined,
  );
}
