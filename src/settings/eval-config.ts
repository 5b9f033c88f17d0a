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
import type { TomlConfig } from './setting-table.js';
import * as std from '../io/std.js';

/**
 * A run's settings by their TOML keys (docs/flags.md lists them; `task` and `sampling` are
 * sections), derived from the declaration. Only `model` is required, except on a resume,
 * which takes the saved run's. `check` and `progress` are the command line's concerns.
 */
export type EvalConfig = Omit<TomlConfig, 'check' | 'progress'>;

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
    options.env ?? std.env(),
    saved,
    options.resume ? join(options.resume, RUN_FILE) : undefined,
  );
}
