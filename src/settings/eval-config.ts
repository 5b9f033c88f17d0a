/**
 * The configuration of a run for a program that calls bas (the public `runEval`): the keys of
 * a TOML run configuration, as a plain object, checked exactly as a config file is (the same
 * declaration, ranges and messages), with the same defaults, endpoint and provider rules.
 */
import { checkConfig, type FileConfig } from './config.js';
import type { TomlConfig } from './setting-table.js';

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

/** How the library names itself in an error: `"n" in runEval() must be …`. */
export const API_SOURCE = 'runEval()';

/** `config` checked as a config file is: throws a ConfigError naming the key, the value and the range. */
export function checkEvalConfig(config: EvalConfig): FileConfig {
  return checkConfig(given(config), API_SOURCE);
}
