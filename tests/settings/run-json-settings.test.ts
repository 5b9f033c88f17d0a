/**
 * A plan's `record` (run.json's settings) is built from the setting table's run.json paths and
 * typed by `RunJsonSettings`: the fields that type names must be what the table builds, so the
 * engine reads `record.sampling.max_tokens` or `record.base_url` without a cast.
 */
import { describe, expect, it } from 'vitest';
import { resolvePlan, type RunJsonSettings } from '../../src/settings/plan.js';

/** Every field the type names, with the shape of its value (the compiler lists them all). */
const NAMED: { [K in keyof RunJsonSettings as string extends K ? never : K]-?: (v: unknown) => boolean } = {
  model: (v) => typeof v === 'string',
  n: Number.isInteger,
  rollouts: Number.isInteger,
  concurrency: Number.isInteger,
  task: (v) =>
    typeof v === 'object' && v !== null && Object.keys(v).sort().join() === 'fault_rate,num_transactions,seed',
  sampling: (v) =>
    typeof v === 'object' &&
    v !== null &&
    Object.keys(v).sort().join() === 'extra,max_tokens,reasoning_effort,temperature',
  provider: (v) => v === null || typeof v === 'string',
  base_url: (v) => v === null || typeof v === 'string',
  api_key_var: (v) => typeof v === 'string',
  timeout_s: (v) => typeof v === 'number',
  request_timeout_s: (v) => typeof v === 'number',
  max_retries: Number.isInteger,
  shard: (v) => v === null || typeof v === 'object',
  prices: (v) => typeof v === 'object' && v !== null && Object.keys(v).sort().join() === 'in,out',
};

describe("a plan's record, run.json's settings", () => {
  it.each([
    ['an endpoint', { model: 'm', baseUrl: 'http://user:pw@127.0.0.1:9/v1', maxTokens: '300' }],
    ['a built-in model', { model: 'builtin:oracle' }],
  ])('holds every field its type names, in shape, for %s', (_, flags) => {
    const record = resolvePlan(flags, null, '', {}).record;
    for (const [key, shaped] of Object.entries(NAMED)) expect([key, shaped(record[key])]).toEqual([key, true]);
  });

  it('names the endpoint without its credentials, and none for a built-in model', () => {
    const endpoint = resolvePlan({ model: 'm', baseUrl: 'http://user:pw@127.0.0.1:9/v1' }, null, '', {}).record;
    expect([endpoint.base_url, endpoint.sampling.max_tokens]).toEqual(['http://127.0.0.1:9/v1', null]);
    expect(resolvePlan({ model: 'builtin:oracle' }, null, '', {}).record.base_url).toBeNull();
  });
});
