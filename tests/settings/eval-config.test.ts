/**
 * evalSettings(), the public way to give a run's settings: its typed keys are the TOML keys of
 * the one declaration (derived from it: tests/settings/new-setting.test.ts), and a bad value
 * is refused as a config file's would be.
 */
import { describe, expect, it } from 'vitest';
import { evalSettings, type EvalConfig } from '../../src/settings/eval-config.js';

describe('evalSettings', () => {
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
