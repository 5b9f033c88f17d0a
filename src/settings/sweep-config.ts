/**
 * The configuration of a sweep for a program (the public `runSweep`): the keys of a TOML run
 * configuration, as `runEval` takes them, with `models` (one curve each) and the sweep's axis
 * as a list where a run takes one value: `task.num_transactions` (rows), or the reasoning
 * budget, `sampling.reasoning_effort` or `sampling.max_tokens`; `task.fault_rate` may list
 * several too. It is checked as a config file is, then given to `bas sweep`'s own planning as
 * the flags it would get (text and switches), which sweep.json keeps, so `bas sweep --resume`
 * continues it.
 */
import { ConfigError } from '../errors/index.js';
import { checkConfig } from './config.js';
import type { EvalConfig } from './eval-config.js';
import { SETTINGS, SETTING_KEYS, type SettingKey } from './setting-table.js';

type Section<K extends 'task' | 'sampling'> = NonNullable<EvalConfig[K]>;

/** A sweep's settings by their TOML keys; the axis (and the fault rates) may be lists. */
export type SweepConfig = Omit<EvalConfig, 'model' | 'task' | 'sampling'> & {
  /** The models, one curve each (at most 20). */
  models: string[];
  task?: Omit<Section<'task'>, 'num_transactions' | 'fault_rate'> & {
    num_transactions?: number | number[];
    fault_rate?: number | number[];
  };
  sampling?: Omit<Section<'sampling'>, 'max_tokens' | 'reasoning_effort'> & {
    max_tokens?: number | number[];
    reasoning_effort?: string | string[];
  };
};

/** The settings a sweep may list several values of, which `bas sweep` reads as comma-separated text. */
const LISTS: ReadonlySet<SettingKey> = new Set(['numTransactions', 'faultRate', 'reasoningEffort', 'maxTokens']);

function at(doc: Record<string, unknown>, path: string): unknown {
  const [head, rest] = path.split('.', 2) as [string, string | undefined];
  const v = doc[head];
  if (rest === undefined) return v;
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[rest] : undefined;
}

/** `doc` with each list of a setting that takes one replaced by its first value: what the config check sees. */
function firstValues(doc: Record<string, unknown>, lists: Map<SettingKey, unknown[]>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...doc };
  for (const s of ['task', 'sampling']) if (typeof doc[s] === 'object' && doc[s] !== null) copy[s] = { ...doc[s] };
  for (const [key, values] of lists) {
    const [section, name] = SETTINGS[key].toml!.split('.') as [string, string];
    (copy[section] as Record<string, unknown>)[name] = values[0];
  }
  return copy;
}

/**
 * The flags `bas sweep` would get for `config`, checked as a config file is (errors name the
 * key and `call`); the lists become the comma-separated text the sweep's flags take.
 */
export function sweepFlagsOf(config: SweepConfig, call: string): Record<string, string | string[] | boolean> {
  const doc = Object.fromEntries(Object.entries(config ?? {}).filter(([, v]) => v !== undefined));
  const models = doc.models;
  if (!Array.isArray(models) || models.length === 0 || !models.every((m) => typeof m === 'string'))
    throw new ConfigError(`"models" in ${call} must be a non-empty list of model ids, e.g. ["builtin:oracle"]`);
  delete doc.models;
  if (doc.model !== undefined)
    throw new ConfigError(`"model" in ${call}: a sweep takes "models", a list (one curve each); give "models" only`);
  const lists = new Map<SettingKey, unknown[]>();
  for (const key of LISTS) {
    const v = at(doc, SETTINGS[key].toml!);
    if (Array.isArray(v)) {
      if (v.length === 0) throw new ConfigError(`"${SETTINGS[key].toml}" in ${call} is an empty list`);
      lists.set(key, v);
    }
  }
  // Each key once, the lists at their first value; then every other value of a list alone, as
  // the key's one value is, so an error names the key. The models are the plan's to check
  // (each as its -m), as the grid's values' ranges are.
  checkConfig(firstValues(doc, lists), call);
  for (const [key, values] of lists) {
    const [section, name] = SETTINGS[key].toml!.split('.') as [string, string];
    for (const v of values.slice(1)) checkConfig({ [section]: { [name]: v } }, call);
  }
  if (at(doc, 'task.num_transactions') === undefined && ![...lists.values()].some((v) => v.length > 1))
    throw new ConfigError(
      `${call} needs the points of its axis: task.num_transactions as a list (e.g. [12, 24, 60]), or the reasoning budget, sampling.reasoning_effort (e.g. ["low", "high"]) or sampling.max_tokens (e.g. [1000, 4000])`,
    );
  const flags: Record<string, string | string[] | boolean> = { model: [...(models as string[])] };
  for (const key of SETTING_KEYS) {
    const path = SETTINGS[key].toml;
    const v = path === null || key === 'model' ? undefined : at(doc, path);
    if (v === undefined) continue;
    // As commander gives them, and as sweep.json keeps them: text and switches.
    flags[key] =
      typeof v === 'boolean'
        ? v
        : Array.isArray(v)
          ? v.join(',')
          : typeof v === 'object'
            ? JSON.stringify(v)
            : String(v);
  }
  return flags;
}
