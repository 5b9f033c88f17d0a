import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/settings/config.js';
import { runInfoFor } from '../../src/engine/session.js';
import { renderFlagsDoc } from '../../src/settings/setting-docs.js';
import { COMMAND_FLAGS } from '../../src/settings/command-flags.js';
import { COMMAND_NAMES } from '../../src/settings/command-names.js';
import { flagName } from '../../src/settings/flag.js';
import { maxResponseBytesOf, SETTINGS, SETTING_KEYS, type SettingKey } from '../../src/settings/setting-table.js';
import { resolveSettings } from '../../src/settings/settings.js';
import type { RunInfo } from '../../src/runfile/store.js';
import { planOf } from '../../src/settings/plan.js';
import type { EvalSettings } from '../../src/settings/settings.js';

/** run.json as a new run of these settings would start it. */
const runInfoOf = (s: EvalSettings, at: Date) => runInfoFor(planOf(s).record, at);
const { Option } = createRequire(import.meta.url)('commander') as typeof Commander;

describe('the settings declaration', () => {
  it.each(SETTING_KEYS)('%s: commander hands the value over under the declared key', (key) => {
    expect(new Option(SETTINGS[key].flags).attributeName()).toBe(key);
  });

  it('no two settings share a flag, a TOML key or a run.json key', () => {
    for (const field of ['flags', 'toml', 'runJson'] as const) {
      const seen = SETTING_KEYS.map((k) => SETTINGS[k][field]).filter((v) => v !== null);
      expect(new Set(seen).size).toBe(seen.length);
    }
  });

  it('every TOML key is accepted by the config checker, with its declared type', () => {
    const doc: Record<string, any> = {};
    // TOML integers are read as bigints (so `3.0` can be told from `3`).
    const sample = { integer: 1n, number: 0.5, string: 'x', boolean: true, table: {} } as const;
    for (const key of SETTING_KEYS) {
      const path = SETTINGS[key].toml;
      if (!path) continue;
      const parts = path.split('.');
      let at = doc;
      for (const p of parts.slice(0, -1)) at = at[p] ??= {};
      at[parts.at(-1)!] = sample[SETTINGS[key].kind];
    }
    expect(() => checkConfig(doc, 'all.toml')).not.toThrow();
  });

  it('every flag value, written to run.json and read back on --resume, is the same setting', () => {
    const flags: Partial<Record<SettingKey, string | boolean>> = {
      model: 'm',
      num: '7',
      rollouts: '3',
      concurrency: '5',
      numTransactions: '30',
      faultRate: '0.4',
      seed: '9',
      temperature: '0.5',
      maxTokens: '100',
      reasoningEffort: 'low',
      sampling: '{"top_p": 0.5}',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKeyVar: 'K',
      timeout: '50',
      requestTimeout: '20',
      maxRetries: '2',
      maxErrorRate: '0.3',
      maxResponseMb: '4',
      adapt: false,
      shard: '2/3',
      priceIn: '1.5',
      priceOut: '2',
    };
    const first = resolveSettings(flags, null, '', {});
    const info = JSON.parse(JSON.stringify(runInfoOf(first, new Date(0)))) as RunInfo;
    const again = resolveSettings({}, null, '', {}, info);
    const { check: _c, output: _o, progress: _p, unconfirmed: _u, ...kept } = first;
    expect(again).toMatchObject(kept);
    // The endpoint came from run.json alone: a resume must have it given again (resume-trust.ts).
    expect(again.unconfirmed).toMatch(/give --base-url http:\/\/127\.0\.0\.1:9\/v1 again/);
    expect(info).toMatchObject({
      timeout_s: 50,
      request_timeout_s: 20,
      prices: { in: 1.5, out: 2 },
      sampling: { temperature: 0.5, extra: { top_p: 0.5 } },
      max_response_mb: 4,
      adapt: false,
    });
  });

  it('a run.json written by bas 0.2.0 (no provider, no new keys) still resumes, with the new defaults', () => {
    const old = {
      bas_version: '0.2.0',
      model: 'm',
      base_url: 'http://127.0.0.1:5/v1',
      api_key_var: 'K',
      task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
      n: 4,
      rollouts: 1,
      indices: null,
      shard: null,
      sampling: { temperature: 0, max_tokens: null, reasoning_effort: null, extra: {} },
      concurrency: 2,
      timeout_s: 60,
      request_timeout_s: 30,
      max_retries: 1,
      prices: { in: null, out: null },
      status: 'complete',
    } as unknown as RunInfo;
    const s = resolveSettings({}, null, '', {}, old);
    expect(s).toMatchObject({
      baseUrl: 'http://127.0.0.1:5/v1',
      apiKeyVar: 'K',
      provider: null,
      maxErrorRate: 0.1,
      maxResponseMb: 32,
      adapt: true,
      timeout: 60,
    });
  });

  it('errors name the flag as users type it', () => {
    expect(flagName(SETTINGS.concurrency)).toBe('-c/--concurrency');
    expect(flagName(SETTINGS.num)).toBe('-n');
    expect(flagName(SETTINGS.requestTimeout)).toBe('--request-timeout');
    expect(flagName(SETTINGS.progress)).toBe('--no-progress');
  });

  it('docs/flags.md is the one the declaration renders (npm run docs:flags rewrites it)', () => {
    const doc = readFileSync(new URL('../../docs/flags.md', import.meta.url), 'utf8');
    expect(doc).toBe(renderFlagsDoc());
  });

  it.each(COMMAND_NAMES)(
    'bas %s: commander hands every flag over under its declared key, and no flag twice',
    (name) => {
      const flags = Object.entries(COMMAND_FLAGS[name]);
      for (const [key, f] of flags) expect(new Option(f.flags).attributeName()).toBe(key);
      const names = flags.flatMap(([, f]) => f.flags.replace(/\s*<[^>]*>/, '').split(/,\s*/));
      expect(new Set(names).size).toBe(names.length);
    },
  );
});

describe('the new settings', () => {
  it('have their documented defaults', () => {
    const s = resolveSettings({ model: 'builtin:oracle' }, null, '', {});
    expect([s.maxErrorRate, maxResponseBytesOf(s), s.adapt, s.check, s.provider]).toEqual([
      0.1,
      32 * 1024 * 1024,
      true,
      false,
      null,
    ]);
  });

  it.each([
    [{ maxErrorRate: '1.5' }, /--max-error-rate must be a number from 0 to 1, got "1.5"/],
    [{ maxResponseMb: '0' }, /--max-response-mb must be a number from 0.001 to 500/],
    [{ provider: 'has space' }, /--provider must be a provider name/],
    [{ provider: 'nosuch' }, /--provider: unknown provider "nosuch" \(known: openai, .*prime/],
  ])('%j is refused', (flags, message) => {
    expect(() => resolveSettings({ model: 'm', ...flags }, null, '', {})).toThrow(message);
  });

  it('--no-adapt and the config key turn adaptation off; --check turns the check on', () => {
    expect(resolveSettings({ model: 'm', adapt: false, check: true }, null, '', {})).toMatchObject({
      adapt: false,
      check: true,
    });
    // Commander fills in adapt: true when --no-adapt is absent: the file's value must win then.
    expect(resolveSettings({ model: 'm', adapt: true }, { adapt: false }, 'c.toml', {}).adapt).toBe(false);
    expect(() => resolveSettings({ model: 'm' }, { adapt: 'no' }, 'c.toml', {})).toThrow(
      /"adapt" in c.toml must be true or false/,
    );
  });
});
