/**
 * evalSettings(), the public way to give a run's settings: its typed keys are the TOML keys of
 * the one declaration (a setting added to the table without its key here, or the other way
 * round, fails), and a bad value is refused as a config file's would be.
 */
import { describe, expect, it } from 'vitest';
import { evalSettings, type EvalConfig } from '../../src/settings/eval-config.js';
import { SETTINGS, SETTING_KEYS } from '../../src/settings/setting-table.js';

/** Every key of EvalConfig, sections included: the compiler insists on each one. */
type Full = Required<Omit<EvalConfig, 'task' | 'sampling'>> & {
  task: Required<NonNullable<EvalConfig['task']>>;
  sampling: Required<NonNullable<EvalConfig['sampling']>>;
};
const FULL: Full = {
  model: 'builtin:oracle',
  n: 3,
  rollouts: 2,
  concurrency: 4,
  task: { num_transactions: 12, fault_rate: 0.5, seed: 9 },
  sampling: { temperature: 0, max_tokens: 100, reasoning_effort: 'low', extra: { top_p: 0.9 } },
  provider: 'openai',
  providers: 'providers.toml',
  base_url: 'http://127.0.0.1:9/v1',
  api_key_var: 'K',
  timeout: 30,
  request_timeout: 10,
  stream: true,
  stream_idle_timeout: 20,
  max_retries: 1,
  max_error_rate: 0.5,
  max_response_mb: 2,
  adapt: false,
  output: 'runs/x',
  shard: '1/2',
  price_in: 1,
  price_out: 2,
};

/** The command line's own concerns, which runEval does not take. */
const CLI_ONLY = new Set(['check', 'progress']);

function paths(o: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    (k === 'task' || k === 'sampling') && prefix === '' ? paths(v as Record<string, unknown>, `${k}.`) : [prefix + k],
  );
}

describe('evalSettings', () => {
  it("takes exactly the declaration's TOML keys (but the command line's own)", () => {
    const declared = SETTING_KEYS.map((k): string | null => SETTINGS[k].toml).filter(
      (t): t is string => t !== null && !CLI_ONLY.has(t),
    );
    expect(paths(FULL).sort()).toEqual(declared.sort());
  });

  it('fills in the defaults and keeps what was given', async () => {
    const s = await evalSettings({
      model: 'builtin:oracle',
      n: 3,
      task: { seed: 9 },
      sampling: { temperature: undefined },
    });
    expect(s).toMatchObject({ model: 'builtin:oracle', num: 3, rollouts: 1, numTransactions: 24, seed: 9 });
    expect(s.temperature).toBeNull();
  });

  it.each([
    [{ model: 'builtin:oracle', n: 0 }, /^"n" in evalSettings\(\) must be an integer from 1 to/],
    [{ model: 'builtin:oracle', task: { fault_rate: 2 } }, /^"task\.fault_rate" in evalSettings\(\) must be a number/],
    [{ model: 'builtin:nobody' }, /unknown built-in model/],
    [{}, /model is required/],
    [{ model: 'm', modle: 'x' } as EvalConfig, /^evalSettings\(\): unknown key "modle"/],
  ])('refuses %j in one line naming the key', async (config, message) => {
    await expect(evalSettings(config, { env: {} })).rejects.toThrow(message);
  });
});
