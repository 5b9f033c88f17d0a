/**
 * The library's configuration (what the public runEval takes): its typed keys are the TOML
 * keys of the one declaration (derived from it: tests/settings/new-setting.test.ts), a bad
 * value is refused as a config file's would be, and the plan says once whether the model is
 * built in or behind an endpoint.
 */
import { describe, expect, it } from 'vitest';
import { API_SOURCE, checkEvalConfig, type EvalConfig } from '../../src/settings/eval-config.js';
import { resolvePlan } from '../../src/settings/plan.js';

const plan = (config: EvalConfig, env: NodeJS.ProcessEnv = {}) =>
  resolvePlan({}, checkEvalConfig(config), API_SOURCE, env);

describe('the library configuration', () => {
  it('fills in the defaults and keeps what was given', () => {
    const p = plan({ model: 'builtin:oracle', n: 3, task: { seed: 9 }, sampling: { temperature: undefined } });
    expect(p.tasks).toEqual({
      config: { num_transactions: 24, fault_rate: 0.25, seed: 9 },
      n: 3,
      rollouts: 1,
      shard: null,
    });
    expect(p.settings.temperature).toBeNull();
  });

  it.each([
    [{ model: 'builtin:oracle', n: 0 }, /^"n" in runEval\(\) must be an integer from 1 to/],
    [{ model: 'builtin:oracle', task: { fault_rate: 2 } }, /^"task\.fault_rate" in runEval\(\) must be a number/],
    [{ model: 'builtin:nobody' }, /unknown built-in model/],
    [{}, /model is required/],
    [{ model: 'm', modle: 'x' } as EvalConfig, /^runEval\(\): unknown key "modle"/],
  ])('refuses %j in one line naming the key', (config, message) => {
    expect(() => plan(config)).toThrow(message);
  });

  it('reads the model id once: a built-in policy, or an endpoint with its request settings', () => {
    expect(plan({ model: 'builtin:oracle' }).target).toEqual({ kind: 'builtin', policy: 'oracle' });
    const p = plan({
      model: 'openai/gpt-5-mini',
      base_url: 'http://u:pw@localhost:9/v1',
      sampling: { temperature: 0.5 },
    });
    expect(p.target).toMatchObject({
      kind: 'endpoint',
      model: 'openai/gpt-5-mini',
      baseURL: 'http://u:pw@localhost:9/v1',
      apiKeyVar: 'OPENAI_API_KEY',
      sampling: { temperature: 0.5 },
    });
    // run.json keeps the endpoint without its credentials, and a built-in run keeps none.
    expect(p.record).toMatchObject({ model: 'openai/gpt-5-mini', base_url: 'http://localhost:9/v1', provider: null });
    expect(plan({ model: 'builtin:oracle' }).record).toMatchObject({ base_url: null, provider: null });
  });
});
