/**
 * Every setting of `bas eval`, declared once: its flag, its TOML key, its run.json key, its
 * type, range and default, and whether changing it changes what a run measures. The CLI
 * options, the TOML schema, run.json, the --resume checks and docs/flags.md are
 * all derived from this table (see settings.ts, config.ts, session.ts, scripts/docs-flags.mjs).
 *
 * The entries are declared by concern, each group in a file of its own (model-settings.ts,
 * endpoint-settings.ts, stopping-settings.ts, run-settings.ts, cost-settings.ts), the groups in
 * the order of `bas eval --help`; each entry's shape is `Setting` (setting-entry.ts).
 * Everything else is derived from the table, types included: `SettingValues` (the resolved
 * settings' shape, from each entry's `parse` and `default`) and `TomlConfig` (the library's
 * typed configuration, from the TOML paths and kinds), so adding an entry to a group is the one
 * edit a new setting needs. It imports nothing heavy: `bas --help` builds its options from it.
 */
import { COST_SETTINGS } from './cost-settings.js';
import { ENDPOINT_SETTINGS } from './endpoint-settings.js';
import { MODEL_SETTINGS } from './model-settings.js';
import { RUN_SETTINGS } from './run-settings.js';
import type { Setting } from './setting-entry.js';
import { STOPPING_SETTINGS } from './stopping-settings.js';
import type { TaskConfig } from '../task/types.js';

/** The declaration. Its order is the order of `bas eval --help` and of eval's table in docs/flags.md. */
export const SETTINGS = {
  ...MODEL_SETTINGS,
  ...ENDPOINT_SETTINGS,
  ...STOPPING_SETTINGS,
  ...RUN_SETTINGS,
  ...COST_SETTINGS,
};

export type SettingTable = typeof SETTINGS;
export type SettingKey = keyof SettingTable;

/** One value per setting, checked; null where "not given" means "leave it to someone else". */
export type SettingValues = { [K in SettingKey]: SettingTable[K] extends Setting<infer V, any, any> ? V : never };

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The run.json keys of the measured settings: what --resume keeps and merged runs must share. */
export const MEASURED_RUN_JSON_KEYS: readonly string[] = SETTING_KEYS.flatMap((k) =>
  SETTINGS[k].measured && SETTINGS[k].runJson ? [SETTINGS[k].runJson] : [],
);

// --- Derived forms: computed from the values when a consumer needs another shape, never stored. ---

/** The generator's configuration (run.json's `task`). */
export function taskConfigOf(v: Pick<SettingValues, 'numTransactions' | 'faultRate' | 'seed'>): TaskConfig {
  return { num_transactions: v.numTransactions, fault_rate: v.faultRate, seed: v.seed };
}

/** Sampling settings sent with every request (run.json's `sampling`). */
export interface Sampling {
  temperature: number | null;
  max_tokens: number | null;
  reasoning_effort: string | null;
  /** Extra request fields, merged in last (`--sampling`). */
  extra: Record<string, unknown>;
}

/** The sampling fields of each request (run.json's `sampling`): `--sampling` is its `extra`. */
export function samplingOf(
  v: Pick<SettingValues, 'temperature' | 'maxTokens' | 'reasoningEffort' | 'sampling'>,
): Sampling {
  return {
    temperature: v.temperature,
    max_tokens: v.maxTokens,
    reasoning_effort: v.reasoningEffort,
    extra: v.sampling,
  };
}

/** `--max-response-mb` in bytes, the HTTP client's cap on one response body. */
export function maxResponseBytesOf(v: Pick<SettingValues, 'maxResponseMb'>): number {
  return Math.round(v.maxResponseMb * 1024 * 1024);
}

/** USD per million tokens (run.json's `prices`), as the cost of a summary takes them. */
export function pricesOf(v: Pick<SettingValues, 'priceIn' | 'priceOut'>): { in: number | null; out: number | null } {
  return { in: v.priceIn, out: v.priceOut };
}

// --- The typed configuration, derived from the TOML paths and kinds of the declaration. ---

/** What a TOML key takes, by its declared kind. */
interface KindValue {
  integer: number;
  number: number;
  string: string;
  boolean: boolean;
  table: Record<string, unknown>;
}
type TomlPath<K extends SettingKey> = SettingTable[K]['toml'];
type TomlValue<K extends SettingKey> = KindValue[SettingTable[K]['kind']];
type SectionOf<P> = P extends `${infer S}.${string}` ? S : never;
type Plain<T> = { [K in keyof T]: T[K] };

/**
 * A run configuration by its TOML keys, every one optional, with `task` and `sampling` as
 * sections: `{ model: 'm', n: 30, task: { seed: 7 } }`. A setting declared with a TOML path
 * appears here with no other edit.
 */
export type TomlConfig = Plain<
  {
    [K in SettingKey as TomlPath<K> extends `${string}.${string}` | null ? never : TomlPath<K> & string]?: TomlValue<K>;
  } & {
    [S in SectionOf<TomlPath<SettingKey>>]?: {
      [K in SettingKey as TomlPath<K> extends `${S}.${infer Rest}` ? Rest : never]?: TomlValue<K>;
    };
  }
>;
