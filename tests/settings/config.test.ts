import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { loadConfigFile } from '../../src/settings/config.js';
import { resolveSettings, type SavedSettings } from '../../src/settings/settings.js';
import { taskConfigOf } from '../../src/settings/setting-table.js';

function toml(text: string): string {
  const f = join(mkdtempSync(join(tmpdir(), 'bas-cfg-')), 'c.toml');
  writeFileSync(f, text);
  return f;
}

describe('TOML run configuration', () => {
  it('the shipped configuration is the original measured run', () => {
    const file = loadConfigFile('configs/au-bas-reconciliation.toml');
    const s = resolveSettings({}, file, 'x', {});
    expect(s.model).toBe('openai/gpt-5-mini');
    expect(s.num).toBe(30);
    expect(taskConfigOf(s)).toEqual({ num_transactions: 60, fault_rate: 0.35, seed: 20260826 });
    expect(s.temperature).toBe(0);
    expect(s.timeout).toBe(480);
  });

  it.each([
    ['modle = "x"', /unknown key "modle"/],
    ['[task]\nrows = 3', /unknown key "task.rows"/],
    ['n = "30"', /"n" must be an integer, got a string/],
    ['n = 2.5', /"n" must be an integer, got a float$/],
    // TOML tells integers from floats; an integer key takes an integer, as -n takes 3 and not 3.0.
    ['n = 3.0', /"n" must be an integer, got a float \(write 3, without a decimal point or exponent\)$/],
    ['concurrency = 2e0', /"concurrency" must be an integer, got a float \(write 2,/],
    ['[task]\nseed = 1.0', /"task.seed" must be an integer, got a float/],
    ['[sampling]\nmax_tokens = 1e3', /"sampling.max_tokens" must be an integer, got a float/],
    ['[sampling]\ntemperature = "hot"', /"sampling.temperature" must be a number/],
    ['progress = 1', /"progress" must be a boolean/],
    ['task = 3', /"task" must be a table/],
    ['n = = 3', /not valid TOML \(line 1/],
  ])('%s is refused', (text, message) => {
    expect(() => loadConfigFile(toml(text))).toThrow(message);
  });

  it('range errors name the key and the file', () => {
    const f = toml('model = "builtin:oracle"\n[task]\nfault_rate = 1.5');
    expect(() => resolveSettings({}, loadConfigFile(f), f, {})).toThrow(
      /"task.fault_rate" in .*c\.toml must be a number from 0 to 1, got 1.5/,
    );
  });

  it('nan and inf for a number key are range errors naming the range, not "must be a number, got a float"', () => {
    const nan = toml('model = "builtin:oracle"\n[task]\nfault_rate = nan');
    expect(() => resolveSettings({}, loadConfigFile(nan), nan, {})).toThrow(
      /"task.fault_rate" in .*c\.toml must be a number from 0 to 1, got NaN/,
    );
    const inf = toml('model = "builtin:oracle"\n[sampling]\ntemperature = -inf');
    expect(() => resolveSettings({}, loadConfigFile(inf), inf, {})).toThrow(
      /"sampling.temperature" in .*c\.toml must be a number from 0 to 2, got -Infinity/,
    );
  });

  it('integers stay numbers where a number is wanted, and in free tables', () => {
    const f = toml(
      'model = "m"\ntimeout = 5\nn = 3\n[task]\nseed = 9007199254740991\n[sampling.extra]\ntop_k = 40\nstop = [1, 2]',
    );
    const s = resolveSettings({}, loadConfigFile(f), f, {});
    expect([s.timeout, s.num, s.seed]).toEqual([5, 3, 9007199254740991]);
    expect(s.sampling).toEqual({ top_k: 40, stop: [1, 2] });
    const big = toml('model = "m"\n[task]\nseed = 9007199254740993');
    expect(() => resolveSettings({}, loadConfigFile(big), big, {})).toThrow(
      /"task.seed" in .*c\.toml must be an integer from 0 to 9007199254740991, got "9007199254740993"/,
    );
  });

  it('flags override the file', () => {
    const f = toml('model = "a"\nn = 5\n[task]\nseed = 7');
    const s = resolveSettings({ num: '9', seed: '8' }, loadConfigFile(f), f, {});
    expect([s.model, s.num, s.seed]).toEqual(['a', 9, 8]);
  });

  it('a missing file is a ConfigError', () => {
    expect(() => loadConfigFile('/nonexistent/x.toml')).toThrow(ConfigError);
  });
});

describe('resolveSettings', () => {
  it('base URL: flag, else OPENAI_BASE_URL, else OpenAI', () => {
    expect(
      resolveSettings({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1/' }, null, '', { OPENAI_BASE_URL: 'http://e/v1' })
        .baseUrl,
    ).toBe('http://127.0.0.1:9/v1');
    expect(resolveSettings({ model: 'm' }, null, '', { OPENAI_BASE_URL: 'http://e/v1' }).baseUrl).toBe('http://e/v1');
    expect(resolveSettings({ model: 'm' }, null, '', {}).baseUrl).toBe('https://api.openai.com/v1');
  });

  it.each([
    [{ num: '0' }, /-n must be an integer from 1/],
    [{ rollouts: 'x' }, /-r\/--rollouts/],
    [{ concurrency: '-1' }, /-c\/--concurrency/],
    [{ temperature: '3' }, /--temperature must be a number from 0 to 2, got "3"/],
    [{ maxTokens: '1.5' }, /--max-tokens/],
    [{ reasoningEffort: 'huge' }, /--reasoning-effort must be one of/],
    [{ sampling: '{bad' }, /--sampling must be a JSON object/],
    [{ sampling: '{"messages": []}' }, /may not set "messages"/],
    [{ baseUrl: 'ftp://x' }, /--base-url must be an http\(s\) URL/],
    [{ apiKeyVar: 'sk-123' }, /--api-key-var must be the NAME/],
    [{ timeout: '0' }, /--timeout must be a number from 0.001/],
    [{ requestTimeout: 'soon' }, /--request-timeout/],
    [{ maxRetries: '101' }, /--max-retries/],
    [{ faultRate: '2' }, /--fault-rate/],
  ])('%j is refused', (flags, message) => {
    expect(() => resolveSettings({ model: 'm', ...flags }, null, '', {})).toThrow(message);
  });

  it('requires a model', () => {
    expect(() => resolveSettings({}, null, '', {})).toThrow(/--model is required/);
  });

  const saved: SavedSettings = {
    model: 'm',
    n: 10,
    rollouts: 2,
    task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
    sampling: { temperature: 0, max_tokens: null, reasoning_effort: null, extra: {} },
    base_url: 'http://127.0.0.1:1/v1',
    api_key_var: 'K',
    concurrency: 3,
    timeout_s: 60,
    request_timeout_s: 30,
    max_retries: 2,
    shard: { index: 2, count: 3 },
    prices: { in: 1, out: null },
  };
  it('a resume keeps the saved shard and prices, and refuses another shard', () => {
    const s = resolveSettings({}, null, '', {}, saved);
    expect(s.shard).toEqual({ index: 2, count: 3 });
    expect([s.priceIn, s.priceOut]).toEqual([1, null]);
    expect(() => resolveSettings({ shard: '1/3' }, null, '', {}, saved)).toThrow(
      /--shard "1\/3" differs from the saved run's "2\/3"/,
    );
    expect(resolveSettings({ shard: '2/3' }, null, '', {}, saved).shard).toEqual({ index: 2, count: 3 });
  });

  it.each([['0/4'], ['5/4'], ['1/0'], ['a/b'], ['2']])('refuses --shard %s', (value) => {
    expect(() => resolveSettings({ model: 'm', shard: value }, null, '', {})).toThrow(/--shard must be I\/N/);
  });

  it('a resume starts from the saved run and lets operational flags change', () => {
    const s = resolveSettings({ concurrency: '9', baseUrl: 'http://127.0.0.1:2/v1' }, null, '', {}, saved);
    expect([
      s.model,
      s.num,
      s.rollouts,
      s.seed,
      s.temperature,
      s.concurrency,
      s.baseUrl,
      s.apiKeyVar,
      s.maxRetries,
    ]).toEqual(['m', 10, 2, 1, 0, 9, 'http://127.0.0.1:2/v1', 'K', 2]);
  });
  it.each([
    [{ faultRate: '0.3' }, /--fault-rate 0.3 differs from the saved run's 0.25/],
    [{ num: '11' }, /-n 11 differs/],
    [{ model: 'other' }, /-m\/--model "other" differs/],
    [{ temperature: '1' }, /--temperature 1 differs from the saved run's 0/],
    [{ rollouts: '1' }, /-r\/--rollouts/],
  ])('a resume refuses %j', (flags, message) => {
    expect(() => resolveSettings(flags, null, '', {}, saved)).toThrow(message);
  });
  it('a resume accepts flags equal to the saved ones', () => {
    expect(() => resolveSettings({ faultRate: '0.25', num: '10', model: 'm' }, null, '', {}, saved)).not.toThrow();
  });
});

describe('config files of any size', () => {
  it('a device that never ends (/dev/zero) is refused at the size bound, in one line, instead of filling memory', () => {
    expect(() => loadConfigFile('/dev/zero')).toThrow(ConfigError);
    expect(() => loadConfigFile('/dev/zero')).toThrow(
      /config file \/dev\/zero is larger than 1000000 bytes: not a run configuration/,
    );
  });
});
